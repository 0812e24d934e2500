/**
 * Durability: a resting paper limit order survives the death of its worker process. The worker
 * runs as a child process (`worker/main.ts`), is killed with SIGKILL while the order rests, the
 * mark crosses while no worker runs, and a new worker process fills it exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { Decimal } from '../../domain/decimal.js';
import { Fill } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { intentWorkflowId } from '../../modules/oms/workflows/intent.definitions.js';
import { startStack, type Stack } from '../support/stack.js';
import { exited, spawnWorker } from '../support/worker-process.js';
import { publish, restingBuyPrice } from '../support/marks.js';
import { btcLimitBuy } from '../support/trading.js';
import { waitFor } from '../support/wait.js';
import { maybeSaveHistory } from '../support/histories.js';

describe('a resting limit order across a worker restart', () => {
  let s: Stack;
  let worker: ChildProcess | undefined;
  beforeAll(async () => {
    s = await startStack({ worker: false });
  });
  afterAll(async () => {
    worker?.kill('SIGKILL');
    await s?.stop();
  });

  it('rests, survives SIGKILL of its worker, and fills exactly once when the mark crosses', async () => {
    const { price, low } = await restingBuyPrice(s.orm, 'BTC.PAPER');
    const t = await s.trader();

    worker = spawnWorker(s);
    const res = await s.call('POST', '/api/v1/oms/intents', {
      token: t.token,
      body: btcLimitBuy(price.toFixed(), '0.002', 'restart-1'),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const intentId = res.body.intentId;
    const resting = await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${intentId}`, { token: t.token }),
      (r) => r.body.orderStatus === 'open',
      30_000,
    );
    expect(resting.body).toMatchObject({ state: 'dispatched', filledQty: '0' });

    worker.kill('SIGKILL');
    await exited(worker);
    await publish(s.orm, low); // the mark crosses while no worker runs
    await publish(s.orm, low);
    expect((await s.call('GET', `/api/v1/oms/intents/${intentId}`, { token: t.token })).body.state).toBe('dispatched');

    worker = spawnWorker(s);
    const filled = await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${intentId}`, { token: t.token }),
      (r) => r.body.state === 'filled',
      30_000,
    );
    expect(filled.body).toMatchObject({ orderStatus: 'filled', filledQty: '0.002', avgFillPrice: price.toFixed() });

    await publish(s.orm, low); // more crossings after the fill change nothing
    const handle = s.temporal.workflow.getHandle(intentWorkflowId(intentId));
    expect(await handle.result()).toMatchObject({ intentId, state: 'filled' });
    const fills = await scoped(s.orm, s.tenant.id).find(Fill, { intentId });
    expect(fills).toHaveLength(1);
    expect(fills[0]).toMatchObject({ liquidity: 'maker', qty: '0.002' });
    expect(new Decimal(fills[0].price).eq(price)).toBe(true);

    await maybeSaveHistory(handle, 'intent-resting-limit-filled');
    worker.kill('SIGTERM');
    await exited(worker);
    worker = undefined;
  });
});
