#!/usr/bin/env bash
# Runs a project command on the provisioned Node.js (scripts/setup.sh first), from the repo root:
#   run.sh FILE.ts ARGS...   node --import tsx FILE.ts ARGS...   (FILE relative to the repo root)
#   run.sh --vitest ARGS...  vitest
#   run.sh --tsc ARGS...     tsc
#   run.sh --bin NAME ARGS... node_modules/.bin/NAME (a dev tool: prettier, eslint, depcruise, knip)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/setup.sh"
cd "$ROOT"
case "${1:-}" in
  --vitest) shift; exec node node_modules/vitest/vitest.mjs "$@" ;;
  --tsc) shift; exec node node_modules/typescript/bin/tsc "$@" ;;
  --bin)
    [ -n "${2:-}" ] && [ -e "node_modules/.bin/$2" ] || { echo "run.sh --bin: no node_modules/.bin/${2:-<name>}" >&2; exit 2; }
    bin="node_modules/.bin/$2"; shift 2; exec node "$bin" "$@" ;;
  '') echo "usage: bash scripts/run.sh FILE.ts [ARGS...] | --vitest [ARGS...] | --tsc [ARGS...] | --bin NAME [ARGS...]" >&2; exit 2 ;;
  *) exec node --import tsx "$@" ;;
esac
