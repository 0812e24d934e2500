/**
 * The workflow bundle entry (workflows/index.ts) as an absolute path, in a module of its own so
 * that bundling code (the test global setup) does not load the activities and their venue clients.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Absolute path of workflows/index.ts, the entry `Worker.create` and `bundleWorkflowCode` take. */
export const WORKFLOWS_PATH = require.resolve('../workflows/index.ts');
