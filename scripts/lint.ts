/**
 * `npm run lint` (README "Tests" → Lint): runs the six checks in order, each the command of its own
 * npm script in package.json so there is one place to change them, and all six even when one fails:
 *   lint:format  prettier --check .            formatting (.prettierrc.json, .prettierignore)
 *   typecheck    tsc --noEmit (root and web)   the compiler's own errors (eslint's type-aware rules do not report them)
 *   lint:eslint  eslint .                      typescript-eslint, type-checked (eslint.config.js)
 *   lint:deps    depcruise .                   the import rules (.dependency-cruiser.cjs)
 *   lint:dead    knip                          unused files, exports, dependencies (knip.jsonc)
 *   lint:openapi redocly lint docs/openapi.json   Redocly's recommended rules, any warning fails (redocly.yaml)
 * Ends with one line `lint: N passed, M failed (names)`.
 * @throws (exit 1) when any check fails; (exit 2) when package.json lacks one of the scripts.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fromRoot } from '../project-root.js';

/** The npm scripts `npm run lint` runs, in this order (cheapest and most common failure first). */
const CHECKS = ['lint:format', 'typecheck', 'lint:eslint', 'lint:deps', 'lint:dead', 'lint:openapi'] as const;

const scripts = (JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { scripts: Record<string, string> })
  .scripts;
const failed: string[] = [];
for (const name of CHECKS) {
  const command = scripts[name];
  if (!command) {
    console.error(`lint: package.json has no script "${name}"`);
    process.exit(2);
  }
  console.log(`\n▶ ${name}: ${command}`);
  const started = Date.now();
  const run = spawnSync('bash', ['-c', command], { cwd: fromRoot(), stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (run.status === 0) console.log(`✔ ${name} (${seconds} s)`);
  else {
    failed.push(name);
    console.log(`✘ ${name} failed (exit ${run.status ?? run.signal}, ${seconds} s)`);
  }
}
console.log(
  `\nlint: ${CHECKS.length - failed.length} passed, ${failed.length} failed${failed.length ? ` (${failed.join(', ')})` : ''}`,
);
process.exitCode = failed.length ? 1 : 0;
