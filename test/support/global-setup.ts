/**
 * Once per test run: a fresh PostgreSQL database with the committed migrations applied
 * (`DATABASE_URL`'s server, else embedded PostgreSQL), one real Temporal dev server
 * (`TestWorkflowEnvironment.createLocal` on the pinned CLI binary), the workflow bundle, and an
 * EVM chain for the prop-firm tests (`CHAIN_RPC_URL`, else anvil from the npm package).
 * A missing component fails the run with a message saying how to get it; nothing is skipped.
 */
import type { TestProject } from 'vitest/node';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode } from '@temporalio/worker';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SA } from '../../workflows/shared.definitions.js';
import { WORKFLOWS_PATH } from '../../worker/workflows-path.js';
import { WORKFLOW_TRACING_MODULES } from '../../telemetry/temporal.js';
import { loadTemporalDevConfig, resolveTemporalBinary } from '../../scripts/lib/temporal-dev.js';
import { ensurePostgres, freshDatabase } from '../../scripts/lib/postgres.js';
import { startAnvil, type Anvil } from '../../scripts/lib/anvil.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    temporalAddress: string;
    workflowBundlePath: string;
    /** The same workflows bundled with the tracing interceptor modules (telemetry/temporal.ts), for stacks started with `tracing`. */
    tracedWorkflowBundlePath: string;
    /** The EVM chain of the prop-firm tests: CHAIN_RPC_URL, else an anvil started for the run. */
    chainRpcUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const root = path.resolve(import.meta.dirname, '../..');
  const pgServer = await ensurePostgres({ dataDir: path.join(root, '.data/pg-test') });
  const database = await freshDatabase(pgServer.url, 'platform_test');
  const databaseUrl = database.url;

  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: resolveTemporalBinary() },
      searchAttributes: Object.values(SA),
      // The dev server's dynamic configuration of temporal-dev.yml, so tests run on the settings dev and the benches use.
      extraArgs: Object.entries(loadTemporalDevConfig().dynamicConfig).flatMap(([key, value]) => [
        '--dynamic-config-value',
        `${key}=${JSON.stringify(value)}`,
      ]),
    },
  });
  const dir = await mkdtemp(path.join(tmpdir(), 'wf-bundle-'));
  const quiet = { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} } as never;
  const bundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quiet });
  const workflowBundlePath = path.join(dir, 'workflows.js');
  await writeFile(workflowBundlePath, bundle.code);
  const traced = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_TRACING_MODULES,
    logger: quiet,
  });
  const tracedWorkflowBundlePath = path.join(dir, 'workflows-traced.js');
  await writeFile(tracedWorkflowBundlePath, traced.code);

  const anvil: Anvil | null = process.env.CHAIN_RPC_URL ? null : await startAnvil();

  project.provide('databaseUrl', databaseUrl);
  project.provide('chainRpcUrl', process.env.CHAIN_RPC_URL ?? anvil!.rpcUrl);
  project.provide('temporalAddress', env.address);
  project.provide('workflowBundlePath', workflowBundlePath);
  project.provide('tracedWorkflowBundlePath', tracedWorkflowBundlePath);

  return async () => {
    await anvil?.stop();
    await env.teardown();
    await rm(dir, { recursive: true, force: true });
    await database.drop();
    await pgServer.stop();
  };
}
