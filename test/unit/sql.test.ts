/**
 * db/sql.ts, the plain SQL of the ledger's transactions (issue 15): the same statement answers the same through the
 * ledger's pool and through a MikroORM fork, a fork's pending changes are seen by its statements, and a transaction
 * that fails part-way leaves nothing behind; a paper order's risk reads (mark, positions, balance) come back from their
 * one statement exactly as the rows are stored.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openOrm, platformEm } from '../../db/orm.js';
import { Mark } from '../../db/entities.js';
import { readMark } from '../../db/marks.js';
import { insertRow, sqlOf, sqlOfClient, transaction } from '../../db/sql.js';
import {
  composedIntent,
  recordIntentRow,
  venueReads,
  withLockedIntent,
  withRecordedIntent,
  writeIfUnchanged,
  intentEvent,
  prefetchVenueReads,
} from '../../modules/oms/activities/ledger.js';
import { omsActivities } from '../../modules/oms/activities/oms.js';
import { newIntent, type IntentOrder } from '../../domain/oms/new-intent.js';
import { ensureTenant, issueCredential } from '../../db/seed.js';
import { appendEvents } from '../../db/events.js';
import { Decimal } from '../../domain/decimal.js';

const VENUE = 'sqltest';
const book: { bids: [string, string][]; asks: [string, string][] } = { bids: [['99.5', '2']], asks: [['100.5', '3']] };

/**
 * A fresh tenant's trader (its credential, with its account) and the paper limit orders it composes: `intent(id, order)`
 * a buy of 1 BTC.PAPER at 100 unless `order` says otherwise, its intent id unique per `id`.
 */
async function trader(orm: MikroORM, slug: string) {
  const tenant = await ensureTenant(orm, { slug: `${slug}-${Date.now()}`, displayName: slug, origins: [] });
  const cred = await issueCredential(orm, { tenantId: tenant.id, audience: 'trader' });
  const intent = (id: string, order: Partial<Pick<IntentOrder, 'side' | 'qty' | 'price'>> = {}) =>
    newIntent({
      intentId: `int_${slug}_${Date.now()}_${id}`,
      tenantId: tenant.id,
      accountId: cred.accountId!,
      credentialId: cred.credentialId,
      venue: 'paper',
      symbol: 'BTC.PAPER',
      side: 'buy',
      type: 'limit',
      qty: '1',
      price: '100',
      reduceOnly: false,
      timeInForce: 'Gtc',
      leverage: '1',
      ...order,
    });
  return { cred, intent };
}

/** Records the text of every statement any `pg` client sends, in order, until `restore()`. */
function recordStatements(): { statements: string[]; restore: () => void } {
  const statements: string[] = [];
  const query: (...a: unknown[]) => unknown = Reflect.get(pg.Client.prototype, 'query');
  Reflect.set(pg.Client.prototype, 'query', function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    statements.push(typeof first === 'string' ? first : (first.text ?? ''));
    return query.apply(this, args);
  });
  return { statements, restore: () => Reflect.set(pg.Client.prototype, 'query', query) };
}

// Every case on a pool that waits for each answer and on one that pipelines (the worker's ledger pool, issue 15).
describe.each([false, true])('db/sql.ts (pipeline: %s)', (pipeline) => {
  let orm: MikroORM;
  let pool: pg.Pool;
  beforeAll(async () => {
    orm = await openOrm(inject('databaseUrl'));
    pool = new pg.Pool({ connectionString: inject('databaseUrl'), max: 2, pipeline });
    await clean();
  });
  const clean = () =>
    Promise.all(
      ['marks', 'positions', 'account_balances'].map((t) => pool.query(`delete from ${t} where venue = $1`, [VENUE])),
    );
  afterAll(async () => {
    await clean();
    await pool.end();
    await orm.close();
  });

  it('a MikroORM fork sees its own pending row, and the ledger pool reads the same mark once committed', async () => {
    const em = platformEm(orm);
    const ts = new Date();
    em.create(Mark, { venue: VENUE, symbol: 'A', mark: '100.123456789', bid: '99.5', ask: '100.5', book, ts });
    // Not flushed yet: a statement through the fork flushes first, in the fork's own transaction.
    await em.transactional(async (tx) => {
      tx.create(Mark, { venue: VENUE, symbol: 'B', mark: '7', bid: '6', ask: '8', book, ts });
      const inside = await readMark(tx, VENUE, 'B', 60_000);
      expect(inside?.mark.toFixed()).toBe('7');
    });
    await em.flush();
    const viaFork = await readMark(platformEm(orm), VENUE, 'A', 60_000);
    const viaPool = await readMark(sqlOfClient(pool), VENUE, 'A', 60_000);
    expect(viaPool).toEqual(viaFork);
    expect(viaPool?.mark.eq(new Decimal('100.123456789'))).toBe(true); // decimals stay exact, never a float
    expect(viaPool?.book.asks[0].size.toFixed()).toBe('3');
  });

  it('a placeholder used twice binds the same value through either runner', async () => {
    const text = `select count(*)::int as n from marks where venue = $1 and (symbol = $2 or $2 = 'none')`;
    const [viaPool] = await sqlOfClient(pool).rows<{ n: number }>(text, [VENUE, 'A']);
    const [viaFork] = await sqlOf(platformEm(orm)).rows<{ n: number }>(text, [VENUE, 'A']);
    expect(viaPool.n).toBe(1);
    expect(viaFork.n).toBe(1);
  });

  it('a transaction that throws part-way writes nothing', async () => {
    const row = { venue: VENUE, symbol: 'C', mark: '1', bid: '1', ask: '1', book, ts: new Date() };
    await expect(
      transaction(pool, async (tx) => {
        await insertRow(tx, 'marks', row);
        await insertRow(tx, 'marks', row); // the same key again: a unique violation
      }),
    ).rejects.toThrow(/duplicate key/);
    const { rows } = await pool.query(`select 1 from marks where venue = $1 and symbol = 'C'`, [VENUE]);
    expect(rows).toHaveLength(0);
    // The connection went back to the pool usable: the next transaction commits.
    await transaction(pool, (tx) => insertRow(tx, 'marks', row));
    expect((await readMark(sqlOfClient(pool), VENUE, 'C', 60_000))?.mark.toFixed()).toBe('1');
  });

  it('a transaction whose connection is lost between two statements rejects, and the pool goes on with a new one', async () => {
    await expect(
      transaction(pool, async (tx) => {
        const [{ pid }] = await tx.rows<{ pid: number }>('select pg_backend_pid() as pid');
        // Another connection ends this one, as a PostgreSQL restart does (57P01), while no statement of it runs.
        const other = new pg.Client({ connectionString: inject('databaseUrl') });
        await other.connect();
        await other.query('select pg_terminate_backend($1)', [pid]);
        await other.end();
        await new Promise((r) => setTimeout(r, 200)); // the server's notice arrives between two statements
        await tx.rows('select 1');
      }),
    ).rejects.toThrow();
    const after = await pool.query<{ n: number }>('select 1 as n');
    expect(after.rows[0].n).toBe(1);
  });

  it("a paper order's risk reads: its mark, every position of the account on the venue and its balance, in one statement", async () => {
    const at = new Date();
    const position = (symbol: string, qty: string) => ({
      accountId: 'acct-risk',
      venue: VENUE,
      symbol,
      tenantId: 't-risk',
      qty,
      avgEntryPrice: '64000.000000001',
      realizedPnlUsd: '-1.5',
      entryFeesUsd: '0.25',
      leverage: '3',
      openedAt: at,
      updatedAt: at,
    });
    await transaction(pool, async (tx) => {
      await insertRow(tx, 'marks', {
        venue: VENUE,
        symbol: 'R',
        mark: '64001.123456789',
        bid: '64001',
        ask: '64002',
        book,
        ts: at,
      });
      await insertRow(tx, 'positions', position('R', '0.123456789'));
      await insertRow(tx, 'positions', position('S', '0')); // flat rows are read too
      await insertRow(tx, 'positions', { ...position('R', '9'), accountId: 'acct-other' });
      await insertRow(tx, 'account_balances', {
        accountId: 'acct-risk',
        venue: VENUE,
        tenantId: 't-risk',
        balanceUsd: '100000.000000000001',
      });
    });
    const sql = sqlOfClient(pool);
    const reads = await venueReads(sql, { accountId: 'acct-risk', venue: VENUE, symbol: 'R' }, 60_000);
    expect(reads.tick).toEqual(await readMark(sql, VENUE, 'R', 60_000));
    expect(reads.tick?.mark.toFixed()).toBe('64001.123456789');
    expect(reads.balance).toEqual({
      accountId: 'acct-risk',
      venue: VENUE,
      tenantId: 't-risk',
      balanceUsd: '100000.000000000001',
    });
    expect(reads.positions.map((p) => [p.symbol, p.qty, p.avgEntryPrice, p.entryFeesUsd]).sort()).toEqual([
      ['R', '0.123456789', '64000.000000001', '0.25'],
      ['S', '0', '64000.000000001', '0.25'],
    ]);
    expect(reads.positions[0].openedAt).toEqual(at);

    // A stale mark, and an account with nothing on the venue yet.
    const later = at.getTime() + 61_000;
    const none = await venueReads(sql, { accountId: 'acct-new', venue: VENUE, symbol: 'R' }, 60_000, later);
    expect(none).toEqual({ tick: null, positions: [], balance: null });
  });

  it('recordIntent writes the intent and its composed event in one statement; a retry writes neither again', async () => {
    const { cred, intent } = await trader(orm, 'sqltest');
    const input = intent('once', { qty: '0.123456789', price: '64000.5' });
    const oms = omsActivities({ pool, markMaxAgeMs: 60_000, venues: { network: 'testnet' } });
    const { statements, restore } = recordStatements();
    let first;
    try {
      first = await oms.recordIntent(input);
    } finally {
      restore();
    }
    expect(first).toMatchObject({ intentId: input.intentId, state: 'signed_pending_dispatch', qty: '0.123456789' });
    // The account lock, the intent and its event: one statement, no begin or commit of its own (issue 15).
    expect(statements.map((t) => t.trim().split(/\s+/)[0].toLowerCase())).toEqual(['with']);
    const events = async () =>
      (
        await pool.query<{ seq: number; kind: string; intent: string }>(
          `select seq, kind, data->>'intentId' as intent from account_events where account_id = $1 order by seq`,
          [cred.accountId],
        )
      ).rows.filter((e) => e.kind === 'intent.composed');
    expect(await events()).toEqual([expect.objectContaining({ kind: 'intent.composed', intent: input.intentId })]);
    expect(await oms.recordIntent(input)).toEqual(first);
    expect(await events()).toHaveLength(1);
  });

  it("one-statement records and the ledger's transactions on one account number its events 1…n: none twice, none skipped", async () => {
    const { cred, intent: input } = await trader(orm, 'sqlseq');
    const wide = new pg.Pool({ connectionString: inject('databaseUrl'), max: 8, pipeline });
    const deps = { pool: wide };
    try {
      // 24 intents at once, every other one through a transaction (begin, lock, insert, commit) instead of one statement.
      const recorded = await Promise.all(
        Array.from({ length: 24 }, (_, n) => {
          const { row, event } = composedIntent(input(String(n)));
          return n % 2
            ? withRecordedIntent(deps, row, [event], async () => undefined).then((r) => r.recorded)
            : recordIntentRow(deps, row, [event]).then((r) => r.recorded);
        }),
      );
      // Then each moved on by one statement, while a transaction under the same locks appends an event beside each.
      const [moved] = await Promise.all([
        Promise.all(
          recorded.map((seen) =>
            writeIfUnchanged(deps, seen, { lastEvent: 'dispatched', updatedAt: new Date() }, [
              intentEvent({ ...seen, lastEvent: 'dispatched' }, 'intent.test_one_statement'),
            ]),
          ),
        ),
        Promise.all(
          recorded.map((seen) =>
            withLockedIntent(deps, seen.id, (tx, intent) =>
              appendEvents(tx, intent.tenantId, intent.accountId, [
                { kind: 'test.locked', frameType: 'Fill', venue: 'paper', data: { intentId: intent.id } },
              ]),
            ),
          ),
        ),
      ]);
      expect(moved).toEqual(recorded.map(() => true)); // the locked transactions left the intents as they were
      const { rows } = await wide.query<{ seq: number; kind: string }>(
        `select seq, kind from account_events where account_id = $1 order by seq`,
        [cred.accountId],
      );
      expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
      const count = (kind: string) => rows.filter((r) => r.kind === kind).length;
      expect([count('intent.composed'), count('intent.test_one_statement'), count('test.locked')]).toEqual([
        24, 24, 24,
      ]);
      const { rows: lastEvents } = await wide.query<{ n: number }>(
        `select count(*)::int as n from order_intents where account_id = $1 and last_event = 'dispatched'`,
        [cred.accountId],
      );
      expect(lastEvents[0].n).toBe(24);
    } finally {
      await wide.end();
    }
  });

  it("a read sent ahead behind a waiting account lock reads what the lock's holder committed, and goes out once", async () => {
    const { cred, intent } = await trader(orm, 'sqlahead');
    const { row, event } = composedIntent(intent('ahead'));
    const { recorded } = await recordIntentRow({ pool }, row, [event]);
    const balance = { accountId: cred.accountId, venue: 'paper', tenantId: recorded.tenantId };
    const upsert = 'on conflict (account_id, venue) do update set balance_usd = excluded.balance_usd';
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const holding = new Promise<void>((r) => (locked = r));
    // The first holder writes the balance under the lock and commits once the second waits for the lock.
    const first = withLockedIntent({ pool }, recorded.id, async (tx) => {
      await insertRow(tx, 'account_balances', { ...balance, balanceUsd: '123.000000001' }, upsert);
      await tx.rows('select 1'); // sends the write
      locked();
      await held;
    });
    await holding;
    const { statements: sent, restore } = recordStatements();
    const readsOf = (texts: string[]) => texts.filter((t) => t.includes('left join account_balances b')).length;
    try {
      const second = withLockedIntent(
        { pool },
        recorded.id,
        (tx, locked) => venueReads(tx, locked, 60_000),
        undefined,
        prefetchVenueReads(recorded),
      );
      await new Promise((r) => setTimeout(r, 300)); // the second's lock statement waits for the first's commit
      // Pipelined, the reads went out behind the waiting lock; otherwise they wait for its answer.
      expect(readsOf(sent)).toBe(pipeline ? 1 : 0);
      release();
      await first;
      const reads = await second;
      expect(reads.balance?.balanceUsd).toBe('123.000000001'); // read after the lock: the first's commit is seen
      expect(readsOf(sent)).toBe(1); // the work's venueReads took the prefetched answer
    } finally {
      restore();
      release();
    }
  });

  it('a one-statement write of an intent that moved on since it was read writes nothing and answers false', async () => {
    const { cred, intent } = await trader(orm, 'sqlstale');
    const { row, event } = composedIntent(intent('stale', { side: 'sell', qty: '2' }));
    const { recorded: seen } = await recordIntentRow({ pool }, row, [event]);
    await withLockedIntent({ pool }, seen.id, async (_tx, intent) => {
      intent.rejectReason = 'moved on'; // saved with a new updatedAt
    });
    const wrote = await writeIfUnchanged({ pool }, seen, { lastEvent: 'dispatched', updatedAt: new Date() }, [
      intentEvent({ ...seen }, 'intent.test_stale'),
    ]);
    expect(wrote).toBe(false);
    const { rows } = await pool.query<{ kind: string }>(
      `select kind from account_events where account_id = $1 and kind like 'intent.%'`,
      [cred.accountId],
    );
    expect(rows.map((r) => r.kind)).toEqual(['intent.composed']);
    const [stored] = (await pool.query(`select last_event, reject_reason from order_intents where id = $1`, [seen.id]))
      .rows;
    expect(stored).toEqual({ last_event: 'composed', reject_reason: 'moved on' });
  });
});
