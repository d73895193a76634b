#!/usr/bin/env bash
# What the cluster test tier (`npm run test:cluster`) needs besides the toolchain: the Temporal server at the
# version the dev server embeds, its SQL schema tool, Toxiproxy, and PostgreSQL. No Docker.
#
#   bash scripts/cluster-build.sh      build/install what is missing; prints the paths as `export` lines
#
# Go binaries are built once from the Go module proxy and cached outside the work tree, in
# $MODEL_RETRY_CACHE (default: ${XDG_CACHE_HOME:-~/.cache}/model-retry), each in its own folder (Temporal's and
# Toxiproxy's server binaries are both named `server`). The first build of the Temporal server takes minutes.
# PostgreSQL: `initdb` on PATH or Debian's /usr/lib/postgresql/<n>/bin; where neither exists and we are root
# with apt-get, Debian's `postgresql` package is installed (as scripts/toolchain.sh installs chromium); else it
# fails saying what to install.
set -euo pipefail

cache="${MODEL_RETRY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/model-retry}"
server_version="v1.29.1"
toxiproxy_version="v2.5.0"
server_dir="$cache/temporal-server-${server_version#v}"
toxiproxy_dir="$cache/toxiproxy-${toxiproxy_version#v}"

say() { printf 'cluster-build: %s\n' "$*" >&2; }

go_install() { # <dir> <module path>@<version> <package paths...>
  local dir="$1" version="$2"
  shift 2
  command -v go >/dev/null 2>&1 || { say "no Go to build $* with: install Go (1.24 or newer)"; exit 1; }
  mkdir -p "$dir"
  local pkgs=()
  for p in "$@"; do pkgs+=("$p@$version"); done
  # Built into a scratch folder and moved in place, so an interrupted build never leaves a half-written binary.
  local scratch
  scratch="$(mktemp -d "$dir/.build-XXXXXX")"
  CGO_ENABLED=0 GOBIN="$scratch" go install "${pkgs[@]}" >&2
  mv "$scratch"/* "$dir"/
  rmdir "$scratch"
}

if [ ! -x "$server_dir/server" ] || [ ! -x "$server_dir/sql" ]; then
  say "building the Temporal server and its SQL tool $server_version (minutes the first time; cached in $server_dir)"
  go_install "$server_dir" "$server_version" go.temporal.io/server/cmd/server go.temporal.io/server/cmd/tools/sql
fi
if [ ! -x "$toxiproxy_dir/server" ] || [ ! -x "$toxiproxy_dir/cli" ]; then
  say "building Toxiproxy $toxiproxy_version (cached in $toxiproxy_dir)"
  go_install "$toxiproxy_dir" "$toxiproxy_version" \
    github.com/Shopify/toxiproxy/v2/cmd/server github.com/Shopify/toxiproxy/v2/cmd/cli
fi

# The schemas ship in the server's module source, which `go install` left in the module cache.
schema_dir="$(go env GOMODCACHE)/go.temporal.io/server@$server_version/schema/postgresql/v12"
[ -d "$schema_dir" ] || go mod download "go.temporal.io/server@$server_version" >&2

pg_bin() {
  if [ -n "${MODEL_RETRY_PG_BIN:-}" ]; then printf '%s\n' "$MODEL_RETRY_PG_BIN"; return 0; fi
  if command -v initdb >/dev/null 2>&1; then dirname "$(readlink -f "$(command -v initdb)")"; return 0; fi
  local newest
  newest="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
  [ -n "$newest" ] && printf '%s\n' "$newest"
}
pg="$(pg_bin || true)"
if [ -z "$pg" ] || [ ! -x "$pg/initdb" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing Debian's postgresql for the cluster tests"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; } >&2 ||
      { say "could not install postgresql"; exit 1; }
    pg="$(pg_bin)"
  else
    say "no PostgreSQL: install it (Debian: apt-get install postgresql) or set MODEL_RETRY_PG_BIN to its bin folder"
    exit 1
  fi
fi

printf 'export MODEL_RETRY_TEMPORAL_SERVER=%q\n' "$server_dir/server"
printf 'export MODEL_RETRY_TEMPORAL_SQL_TOOL=%q\n' "$server_dir/sql"
printf 'export MODEL_RETRY_TEMPORAL_SCHEMA=%q\n' "$schema_dir"
printf 'export MODEL_RETRY_TOXIPROXY=%q\n' "$toxiproxy_dir/server"
printf 'export MODEL_RETRY_PG_BIN=%q\n' "$pg"
