/**
 * Where the worker's workflow code comes from, in a module of its own so that bundling code (the
 * test global setup, scripts/build.ts) does not load the activities and their venue clients:
 * the entry `workflows/index` beside this file (`.ts` from the sources, `.js` in `dist/`), and the
 * workflow bundle `npm run build` prebuilds into `dist/workflows-bundle.js`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

/** This module's own extension: `.ts` when run from the sources (tsx), `.js` when compiled. */
const EXT = path.extname(import.meta.filename);

/** Absolute path of the workflow bundle entry (workflows/index.ts, or dist/workflows/index.js compiled), the entry `Worker.create` and `bundleWorkflowCode` take. */
export const WORKFLOWS_PATH = path.resolve(import.meta.dirname, `../workflows/index${EXT}`);

/** Absolute path where `npm run build` writes the prebuilt workflow bundle: `dist/workflows-bundle.js` (beside `dist/worker/`). */
export const PREBUILT_BUNDLE_PATH = path.resolve(import.meta.dirname, '../workflows-bundle.js');

/**
 * The prebuilt workflow bundle when this module runs compiled and `npm run build` wrote one beside
 * it, else undefined (from the sources the worker bundles `WORKFLOWS_PATH` at start).
 */
export function prebuiltBundlePath(): string | undefined {
  return EXT === '.js' && existsSync(PREBUILT_BUNDLE_PATH) ? PREBUILT_BUNDLE_PATH : undefined;
}
