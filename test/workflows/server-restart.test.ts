/**
 * Durability across a Temporal dev server restart (issue 3): a flatten batch is planned, the worker
 * stops, the server (persistent database file) stops and starts again on the same port, a worker
 * comes back, and the batch completes with every leg filled once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Fill } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { batchWorkflowId } from '../../modules/oms/workflows/batch.definitions.js';
import { freePort, startTemporalDev, type TemporalDev } from '../../scripts/lib/temporal-dev.js';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { waitFor } from '../support/wait.js';

describe('Temporal server restart mid-batch', () => {
  let dir: string;
  let port: number;
  let server: TemporalDev;
  let s: Stack;
  const start = () => startTemporalDev({ port, uiPort: null, dbFilename: path.join(dir, 'temporal.db') });
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'temporal-restart-'));
    port = await freePort();
    server = await start();
    s = await startStack({ temporalAddress: server.address });
    await publish(s.orm, await recordedTick('BTC.PAPER', 0.6));
    await publish(s.orm, await recordedTick('SOL.PAPER', 0.6));
  });
  afterAll(async () => {
    await s?.stop();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('completes the batch after the server comes back with its database', async () => {
    const t = await s.trader();
    for (const body of [
      { symbol: 'BTC.PAPER', side: 'buy', qty: '0.01' },
      { symbol: 'SOL.PAPER', side: 'buy', qty: '2' },
    ]) {
      const c = await s.call('POST', '/api/v1/oms/intents', {
        token: t.token,
        body: { venue: 'paper', type: 'market', ...body },
      });
      await waitFor(
        () => s.call('GET', `/api/v1/oms/intents/${c.body.intentId}`, { token: t.token }),
        (x) => x.body.state === 'filled',
      );
    }
    const res = await s.call('POST', '/api/v1/oms/flatten', { token: t.token, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await s.stopWorker();
    const handle = s.temporal.workflow.getHandle(batchWorkflowId(res.body.batchId));
    expect((await handle.describe()).status.name).toBe('RUNNING');

    await server.stop();
    server = await start();
    expect((await handle.describe()).status.name).toBe('RUNNING'); // the batch came back from the database

    await s.startWorker();
    const outcome = await handle.result();
    expect(outcome.legs.map((l: { action: string; state: string }) => `${l.action} ${l.state}`)).toEqual([
      'close filled',
      'close filled',
    ]);
    for (const leg of res.body.legs)
      expect(await scoped(s.orm, s.tenant.id).count(Fill, { intentId: leg.intentId })).toBe(1);
    expect(
      (await s.call('GET', `/api/v1/accounts/${t.accountId}/positions`, { token: t.token })).body.positions,
    ).toEqual([]);
  });
});
