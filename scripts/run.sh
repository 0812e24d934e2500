#!/usr/bin/env bash
# Runs a project command on the provisioned Node: `run.sh FILE.ts ARGS` (tsx), `--vitest ARGS`, `--tsc ARGS`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/setup.sh"
cd "$ROOT"
case "${1:-}" in
  --vitest) shift; exec node node_modules/vitest/vitest.mjs "$@" ;;
  --tsc) shift; exec node node_modules/typescript/bin/tsc "$@" ;;
  *) exec node --import tsx "$@" ;;
esac
