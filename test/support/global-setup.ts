/**
 * Once per test run: a fresh PostgreSQL database with the committed migrations applied
 * (`DATABASE_URL`'s server, else embedded PostgreSQL), one real Temporal dev server
 * (`TestWorkflowEnvironment.createLocal` on the pinned CLI binary), the workflow bundle, and an
 * EVM chain for the prop-firm tests (`CHAIN_RPC_URL`, else anvil from the npm package).
 * A missing component fails the run with a message saying how to get it; nothing is skipped. At the end it
 * prints how many answers and frames the test processes checked against the API documents (test/support/contract.ts).
 */
import type { TestProject } from 'vitest/node';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode } from '@temporalio/worker';
import { mkdir, mkdtemp, readdir, readFile, writeFile, rm } from 'node:fs/promises';
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
    /** The folder where each test process writes what it checked against the API documents (test/support/contract.ts). */
    contractTally: string;
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
  const contractTally = path.join(dir, 'contract');
  await mkdir(contractTally);
  project.provide('contractTally', contractTally);

  return async () => {
    const tallies = (await readdir(contractTally)).filter((f) => f.endsWith('.json'));
    console.log(contractSummary(await Promise.all(tallies.map((f) => readFile(path.join(contractTally, f), 'utf8')))));
    await anvil?.stop();
    await env.teardown();
    await rm(dir, { recursive: true, force: true });
    await database.drop();
    await pgServer.stop();
  };
}

/** The run's line about the API documents: what the test processes checked (their JSON tallies). */
function contractSummary(tallies: string[]): string {
  const total = { responses: 0, frames: 0, skipped: 0 };
  for (const line of tallies) {
    const t = JSON.parse(line) as typeof total;
    total.responses += t.responses;
    total.frames += t.frames;
    total.skipped += t.skipped;
  }
  return (
    `contract: ${total.responses} answers checked against the OpenAPI document, ${total.frames} frames against ` +
    `the AsyncAPI document (${total.skipped} answers of undocumented paths skipped)`
  );
}
