/**
 * `npm run build` (README "Processes and ports"): compiles the server (tsconfig.build.json: api,
 * worker, activities, workflows, domain, db, migrations, config, `scripts/migrate.ts`) into `dist/`,
 * then prebuilds the workflow bundle into `dist/workflows-bundle.js`, which the compiled worker loads
 * instead of bundling at start (worker/workflows-path.ts). `dist/` is emptied first. The compiled
 * processes need no TypeScript loader: `node dist/api/server.js`, `node dist/worker/main.js`,
 * `node dist/scripts/migrate.js`. Data files (data/recorded, contracts/artifacts, web/dist) stay
 * where they are and are read from the repository root (project-root.ts).
 * @throws (exit 1) when tsc reports an error or bundling fails.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { fromRoot } from '../project-root.js';

const DIST = fromRoot('dist');
const started = Date.now();

rmSync(DIST, { recursive: true, force: true });
const tsc = spawnSync(
  process.execPath,
  [fromRoot('node_modules/typescript/bin/tsc'), '-p', fromRoot('tsconfig.build.json')],
  { stdio: 'inherit' },
);
if (tsc.status !== 0) {
  console.error(`build: tsc -p tsconfig.build.json failed (exit ${tsc.status ?? tsc.signal})`);
  process.exit(1);
}

// The same code the compiled worker runs: bundle the compiled entry, not the sources.
const quiet = { info() {}, warn: console.warn, error: console.error, debug() {}, trace() {}, log() {} };
const { code } = await bundleWorkflowCode({ workflowsPath: path.join(DIST, 'workflows/index.js'), logger: quiet });
const bundlePath = path.join(DIST, 'workflows-bundle.js');
writeFileSync(bundlePath, code);
console.log(
  `build: dist/ compiled, workflow bundle ${path.relative(fromRoot(), bundlePath)} (${Math.round(statSync(bundlePath).size / 1024)} KiB) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
