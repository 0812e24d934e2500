/**
 * A routed order's worker dies between sending the order and recording the intent (issue 15, patch
 * routed-first-task-sends): in the compose's first workflow task the order goes to the venue before the intent is
 * recorded (then recorded `dispatched`). Here that record is held on the account's lock, the worker is killed once the
 * venue has the order, and the record's connection is lost with it; the next worker runs that task again, which is not
 * the first task, so it records the intent and asks the venue for the client order id before sending: the order is
 * found, filled once.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Decimal } from '../../domain/decimal.js';
import { VENUE_SYMBOLS } from '../../domain/market/symbols.js';
import { openOrm } from '../../db/orm.js';
import { publishMark } from '../../modules/market/feeds/marks.js';
import { recordedTick } from '../support/marks.js';
import { startStack, type Stack } from '../support/stack.js';
import { authorizeAgent, startSimulators, type Simulators } from '../support/venues.js';
import { waitFor } from '../support/wait.js';
import { exited, spawnWorker } from '../support/worker-process.js';

describe('a routed order whose worker dies after sending it and before recording it', () => {
  let s: Stack;
  let sims: Simulators;
  let simOrm: MikroORM;
  let worker: ChildProcess | undefined;
  const locker = new pg.Client({ connectionString: inject('databaseUrl') });

  beforeAll(async () => {
    simOrm = await openOrm(inject('databaseUrl'));
    sims = await startSimulators(simOrm);
    // A dead worker's workflow task goes to the next worker after 2 s (workflow-task-timeout.ts).
    s = await startStack({ worker: false, env: { ...sims.env, WORKFLOW_TASK_TIMEOUT_MS: '2000' } });
    await locker.connect();
  });
  afterAll(async () => {
    worker?.kill('SIGKILL');
    await locker.end();
    await s?.stop();
    await sims?.stop();
    await simOrm?.close();
  });

  it('is found on the venue by the task run again: the intent is recorded and filled, exactly one venue order', async () => {
    worker = spawnWorker(s);
    const t = await s.trader('fullTrading', { executionMode: 'routed' });
    const { user } = await authorizeAgent(s, sims, t.token, t.accountId!, 'aster');
    const spec = VENUE_SYMBOLS.aster.find((x) => x.base === 'ETH')!;
    await publishMark(s.orm, { ...(await recordedTick(spec.symbol, 0.5, 'aster')), ts: Date.now() });
    const before = sims.aster.orderCount(user.owner);

    // The account's lock held: the intent's record waits on it, the order (sent before it) does not.
    await locker.query('begin');
    await locker.query('select id from accounts where id = $1 for update', [t.accountId]);
    const body = { venue: 'aster', symbol: spec.symbol, side: 'buy', type: 'market', qty: '0.01' };
    const headers = { 'idempotency-key': `routed-crash-${t.accountId}` };
    const compose = () => s.call('POST', '/api/v1/oms/intents', { token: t.token, body, headers });
    const first = compose();
    await waitFor(
      async () => sims.aster.orderCount(user.owner),
      (n) => n === before + 1,
      10_000,
    );
    worker.kill('SIGKILL');
    await exited(worker);
    // The record's statement is lost with its worker's connection (it was waiting on the lock).
    const { rowCount } = await locker.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where pid <> pg_backend_pid() and wait_event_type = 'Lock' and query like '%insert into order_intents%'`,
    );
    expect(rowCount).toBe(1);
    await locker.query('rollback');
    const unrecorded = await locker.query('select 1 from order_intents where account_id = $1', [t.accountId]);
    expect(unrecorded.rowCount).toBe(0);

    worker = spawnWorker(s);
    expect([201, 503]).toContain((await first).status);
    const retried = await compose();
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    const done = await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${retried.body.intentId}`, { token: t.token }),
      (x) => x.body.state === 'filled' || x.body.state === 'rejected',
      30_000,
    );
    expect(done.body).toMatchObject({ state: 'filled', filledQty: new Decimal('0.01').toFixed() });
    expect(sims.aster.orderCount(user.owner)).toBe(before + 1);
  });
});
