#!/usr/bin/env bash
# Runs a project command (from node_modules/.bin or PATH) with the toolchain in place: Node >= 22 first on
# PATH and TEMPORAL_CLI_PATH set. This is what `npm start`, `npm test` and `npm run bench` go through, so
# they also work on a machine whose system Node is older than 22. `--browser` first also brings Debian's chromium
# (the browser tests need it; the demo does not).
set -euo pipefail
if [ "${1:-}" = "--browser" ]; then
  export MODEL_RETRY_BROWSER=1
  shift
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
MODEL_RETRY_TOOLCHAIN_QUIET="${MODEL_RETRY_TOOLCHAIN_QUIET:-1}"
# shellcheck source=scripts/toolchain.sh
source "$here/toolchain.sh"
export PATH="$root/node_modules/.bin:$PATH"
exec "$@"
