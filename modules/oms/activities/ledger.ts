/**
 * The ledger of every venue: what an execution changes on the platform's books — fills, the net
 * position, closed round trips (trades), the venue balance, the intent's state and the `/ws/risk`
 * events — written in ONE transaction of the intent's tenant under the account lock, as prepared statements on the
 * worker's own `pg` pool (db/sql.ts; issue 15: MikroORM's per-statement machinery was most of the order's database
 * CPU). The paper engine (./paper.ts) and routed dispatch (./routed.ts) both record through it.
 *
 * Idempotent by construction: a retried activity finds the intent already past the state it
 * expects and returns the recorded outcome, so a fill is never recorded twice.
 */
import type pg from 'pg';
import { ApplicationFailure } from '@temporalio/common';
import { Decimal, ZERO, fmt } from '../../../domain/decimal.js';
import { applyFill, fee, type PositionState } from '../../../domain/paper/position.js';
import { TERMINAL_STATES, type IntentState } from '../../../domain/oms/intent.js';
import type { MarkTick } from '../../../domain/market/types.js';
import {
  AccountBalance,
  Fill,
  OrderIntent,
  Position,
  type AccountBalanceRow,
  type OrderIntentRow,
  type PositionRow,
} from '../../../db/entities.js';
import { markColumns, markTickOf, type MarkRow } from '../../../db/marks.js';
import {
  insertRow,
  insertStatement,
  prefixed,
  selectList,
  shiftPlaceholders,
  sqlOfClient,
  transaction,
  updateRow,
  updateStatement,
  type Sql,
} from '../../../db/sql.js';
import { BoundedMap } from '../../../domain/bounded-map.js';
import { marksFor } from '../../../db/account-state.js';
import { fillView, intentToView, positionView, workingOrderView, type Row } from '../../../db/views.js';
import { recordStateSnapshot, type KnownVenueState } from '../../../db/state-snapshots.js';
import { appendEvents, appendEventsStatement, type NewEvent } from '../../../db/events.js';
import type { DispatchOutcome } from '../../../activities/types.js';
import type { ActivityMetrics } from '../../../activities/metrics.js';
import type { IntentWorkflowInput } from '../workflows/intent.definitions.js';

/**
 * What the ledger and the paper venue need: `pool`, the worker's `pg` pool the ledger's transactions run on (prepared
 * statements, no MikroORM: db/sql.ts); the mark freshness bound (ms); `metrics` counts intents reaching a terminal
 * state (activities/metrics.ts).
 */
export interface PaperDeps {
  pool: pg.Pool;
  markMaxAgeMs: number;
  metrics?: ActivityMetrics;
}

const isTerminal = (state: string) => (TERMINAL_STATES as readonly string[]).includes(state);

/** The properties of an entity schema (its row type's keys). */
const propsOf = (schema: { meta: { properties: object } }) => Object.keys(schema.meta.properties);
const INTENT_PROPS = propsOf(OrderIntent);
/** Select lists naming each column as its entity property (db/sql.ts `selectList`). */
const INTENT_COLUMNS = selectList(INTENT_PROPS, 'i');
/** The intent's select list with each name prefixed `i.` (alias `i`), to read it beside other tables' rows (db/sql.ts `prefixed`). */
export const PREFIXED_INTENT_COLUMNS = selectList(INTENT_PROPS, 'i', 'i.');
const POSITION_PROPS = propsOf(Position);
const BALANCE_PROPS = propsOf(AccountBalance);
const POSITION_COLUMNS = selectList(POSITION_PROPS, 'p');
const BALANCE_COLUMNS = selectList(BALANCE_PROPS, 'b');

/** What never changes about an intent: its tenant, account and venue. */
export interface IntentHead {
  tenantId: string;
  accountId: string;
  venue: string;
}

/** How long this process keeps an intent's head after recording or reading it, ms. */
const HEAD_KEEP_MS = 15 * 60_000;
/**
 * Intent heads by id, as this worker process recorded or read them (at most 10,000): immutable facts, so a hit is
 * always right, and {@link withLockedIntent} skips its look-up before locking (issue 15). A miss reads the row.
 */
const heads = new BoundedMap<IntentHead>(10_000);

/** Keeps the head of intent `intentId` (see {@link heads}); {@link withRecordedIntent} calls it for each intent it records. */
function rememberIntentHead(intentId: string, head: IntentHead): void {
  heads.set(
    intentId,
    { tenantId: head.tenantId, accountId: head.accountId, venue: head.venue },
    Date.now() + HEAD_KEEP_MS,
  );
}

/** The head of intent `intentId`, kept or read. @throws ApplicationFailure `intent_not_found` (non-retryable). */
export async function headOf(pool: pg.Pool, intentId: string): Promise<IntentHead> {
  const kept = heads.get(intentId);
  if (kept) return kept.value;
  const [row] = await sqlOfClient(pool).rows<IntentHead>(
    `select tenant_id as "tenantId", account_id as "accountId", venue from order_intents where id = $1`,
    [intentId],
  );
  if (!row) throw ApplicationFailure.nonRetryable(`intent ${intentId} not found`, 'intent_not_found');
  rememberIntentHead(intentId, row);
  return row;
}

/**
 * What the ledger's account lock reads with the account row, in the same statement (issue 15: no statement of their
 * own): the tenant's fee schedule (maker and taker, basis points as decimal strings), and the id of the account's
 * active prop challenge, null when it is none (a fill nudges that challenge's rule watch, docs/api.md §3.5).
 */
export interface LockedAccount {
  feeSchedule: { makerBps: string; takerBps: string };
  challengeId: string | null;
}

/**
 * Locks the account row of `head` in `tx` (`for update of` the account only: neither the tenant nor the prop account
 * row is locked), the same lock as db/events.ts `lockAccount`, reading {@link LockedAccount} with it.
 * @throws Error when the account does not exist in the intent's tenant (a broken intent row; retried as any error).
 */
async function lockAccountOf(tx: Sql, head: Omit<IntentHead, 'venue'>): Promise<LockedAccount> {
  const [row] = await tx.rows<LockedAccount>(LOCK_ACCOUNT, [head.accountId, head.tenantId]);
  if (!row) throw new Error(`account ${head.accountId} of tenant ${head.tenantId} not found`);
  return row;
}

/** {@link lockAccountOf}'s statement (`$1` account, `$2` tenant). */
const LOCK_ACCOUNT = `select t.fee_schedule as "feeSchedule",
    (select pa.id from prop_accounts pa where pa.account_id = a.id and pa.status = 'active' limit 1) as "challengeId"
  from accounts a join tenants t on t.id = a.tenant_id
  where a.id = $1 and a.tenant_id = $2
  for update of a`;

/**
 * {@link lockAccountOf} and the intent `$3` read `for update` after it, in ONE statement (issue 15: one round trip
 * fewer per ledger transaction). The intent is a lateral subquery of the locked account row, so PostgreSQL locks the
 * account first and the intent second, the order every ledger transaction takes them in; a `for update` that waited
 * reads the newest committed version of its row.
 */
const LOCK_ACCOUNT_AND_INTENT = `select a."feeSchedule", a."challengeId", i.*
  from (${LOCK_ACCOUNT.replace('select ', 'select a.id, ')}) a
  left join lateral (
    select ${INTENT_COLUMNS} from order_intents i where i.id = $3 and i.tenant_id = $2 and a.id is not null for update of i
  ) i on true`;

/**
 * Locks the account of `head` and then the intent `intentId` in `tx` (one statement), reading {@link LockedAccount}
 * and the intent row; what changes on the intent is written by {@link withLockedIntent} before its commit.
 * @throws Error when the account does not exist in the intent's tenant; ApplicationFailure `intent_not_found`
 *   (non-retryable) when the intent does not.
 */
async function lockAccountAndIntent(
  tx: Sql,
  head: Omit<IntentHead, 'venue'>,
  intentId: string,
): Promise<{ account: LockedAccount; intent: OrderIntentRow }> {
  const [row] = await tx.rows<LockedAccount & OrderIntentRow>(LOCK_ACCOUNT_AND_INTENT, [
    head.accountId,
    head.tenantId,
    intentId,
  ]);
  if (!row) throw new Error(`account ${head.accountId} of tenant ${head.tenantId} not found`);
  const { feeSchedule, challengeId, ...intent } = row;
  if (intent.id == null) throw ApplicationFailure.nonRetryable(`intent ${intentId} not found`, 'intent_not_found');
  written.set(intent, snapshot(intent));
  return { account: { feeSchedule, challengeId }, intent };
}

/** The intent row as last written (JSON of its properties), to write only what a transaction changed. */
const written = new WeakMap<OrderIntentRow, Record<string, string>>();
const snapshot = (intent: OrderIntentRow) =>
  Object.fromEntries(INTENT_PROPS.map((k) => [k, JSON.stringify(intent[k as keyof OrderIntentRow] ?? null)]));

/**
 * Writes the properties of `intent` changed since it was read or last saved in `tx` (nothing when none), stamping
 * `updatedAt` now unless an event of this change stamped it already ({@link intentEvent}).
 */
async function saveIntent(tx: Sql, intent: OrderIntentRow): Promise<void> {
  const before = written.get(intent) ?? {};
  const changed = INTENT_PROPS.filter((k) => before[k] !== JSON.stringify(intent[k as keyof OrderIntentRow] ?? null));
  if (!changed.length) return;
  if (!changed.includes('updatedAt')) {
    intent.updatedAt = new Date();
    changed.push('updatedAt');
  }
  const changes = Object.fromEntries(changed.map((k) => [k, intent[k as keyof OrderIntentRow] ?? null]));
  await updateRow(tx, 'order_intents', changes, { id: intent.id });
  written.set(intent, snapshot(intent));
}

/**
 * Reads a ledger transaction's `work` will make, sent right behind its account lock ({@link Sql.prefetch}: in the lock's
 * round trip on the worker's pipelining pool, issue 15), e.g. {@link prefetchVenueReads}.
 */
export type ReadsAhead = (tx: Sql) => void;

/**
 * Runs `work` in one transaction of the intent's tenant on the worker's pool (deps.pool: prepared statements, no
 * MikroORM) with the account and the intent locked; `ahead` sends the reads `work` will make right behind the lock.
 * `work` gets the transaction, the intent row (change it in place: what changed is written before the commit) and
 * what the account lock read ({@link LockedAccount}). Every terminal
 * transition of an intent happens in here, so when `work` moved the intent into a terminal state,
 * `metrics.intentTerminal` hears of it once the transaction has committed.
 * @throws ApplicationFailure `intent_not_found` (non-retryable) when no such intent exists.
 */
export async function withLockedIntent<T>(
  deps: Pick<PaperDeps, 'pool'>,
  intentId: string,
  work: (tx: Sql, intent: OrderIntentRow, account: LockedAccount) => Promise<T>,
  metrics?: ActivityMetrics,
  ahead?: ReadsAhead,
): Promise<T> {
  const head = await headOf(deps.pool, intentId);
  const { out, reached } = await transaction(deps.pool, async (tx) => {
    const locked = lockAccountAndIntent(tx, head, intentId);
    ahead?.(tx);
    const { account, intent } = await locked;
    return workOn(tx, intent, account, work);
  });
  if (reached) metrics?.intentTerminal(head.venue, reached);
  return out;
}

/**
 * Runs `work` on a locked intent in `tx` and writes what it changed on the intent; answers its result and the terminal
 * state the intent reached in it (undefined when it was terminal already or is not now), for `metrics.intentTerminal`.
 */
async function workOn<T>(
  tx: Sql,
  intent: OrderIntentRow,
  account: LockedAccount,
  work: (tx: Sql, intent: OrderIntentRow, account: LockedAccount) => Promise<T>,
): Promise<{ out: T; reached: IntentState | undefined }> {
  const before = intent.state;
  const out = await work(tx, intent, account);
  await saveIntent(tx, intent);
  return { out, reached: !isTerminal(before) && isTerminal(intent.state) ? (intent.state as IntentState) : undefined };
}

/**
 * The intent `intentId` of any tenant as a row, read through `sql` outside the ledger's transactions (routed dispatch,
 * read-back and cancel load it so, then record under the locks); null when there is none.
 */
export async function intentById(sql: Sql, intentId: string): Promise<OrderIntentRow | null> {
  const [intent] = await sql.rows<OrderIntentRow>(`select ${INTENT_COLUMNS} from order_intents i where i.id = $1`, [
    intentId,
  ]);
  return intent ?? null;
}

/**
 * Inserts a new intent row in `tx` (its entity properties only) with its `events`, unless an intent with its id exists;
 * answers the row as PostgreSQL stored it (null: a retry found it recorded, and no event is appended either). ONE
 * statement either way (issue 15): the events are a data-modifying part that inserts only when the intent's insert did.
 * The account must be locked already ({@link lockAccountOf}), as for any event append.
 */
async function insertIntent(
  tx: Sql,
  row: Partial<OrderIntentRow> & Pick<OrderIntentRow, 'tenantId' | 'accountId'>,
  events: NewEvent[],
): Promise<OrderIntentRow | null> {
  const known = Object.fromEntries(INTENT_PROPS.map((k) => [k, row[k as keyof OrderIntentRow]]));
  const intent = insertStatement('order_intents', known, `on conflict (id) do nothing returning ${RETURNED_INTENT}`);
  const appended = appendEventsStatement(row.tenantId, row.accountId, events, 'exists (select 1 from inserted)');
  const text = `with inserted as (${intent.text}),
    appended as (${shiftPlaceholders(appended.text, intent.values.length)})
    select * from inserted`;
  const [stored] = await tx.rows<OrderIntentRow>(text, [...intent.values, ...appended.values]);
  if (!stored) return null;
  written.set(stored, snapshot(stored));
  return stored;
}

/**
 * A new intent's row as `recordIntent` inserts it (`signed_pending_dispatch`, or `intent_pending` for a self-signed one;
 * `lastEvent: composed`) and its `intent.composed` event (`Order-Intent-Update`, the intent's view), from the workflow
 * input (docs/order-lifecycle.md §1).
 */
export function composedIntent(input: IntentWorkflowInput): {
  row: Partial<OrderIntentRow> & Pick<OrderIntentRow, 'id' | 'tenantId' | 'accountId' | 'venue' | 'symbol'>;
  event: NewEvent;
} {
  const {
    intentId,
    signing,
    batchId,
    batchLeg,
    pollMs: _p,
    resume: _r,
    historyBound: _b,
    agentId: _a,
    ...fields
  } = input;
  const now = new Date();
  const row = {
    id: intentId,
    ...fields,
    venueSigning: fields.venueSigning ?? null,
    state: signing === 'self' ? 'intent_pending' : 'signed_pending_dispatch',
    orderStatus: null,
    venueOrderId: null,
    filledQty: '0',
    avgFillPrice: null,
    lastEvent: 'composed',
    rejectReason: null,
    triggered: false,
    batchId: batchId ?? null,
    batchLeg: batchLeg ?? null,
    createdAt: now,
    updatedAt: now,
  } satisfies Partial<OrderIntentRow>;
  const data = intentToView(row as OrderIntentRow);
  return { row, event: { kind: 'intent.composed', frameType: 'Order-Intent-Update', venue: input.venue, data } };
}

/** The intent's columns named as its properties in an insert's `returning` list. */
const RETURNED_INTENT = selectList(INTENT_PROPS, 'order_intents');

/**
 * {@link withLockedIntent} for an intent recorded in the same transaction (issue 15: a paper order's record, risk check
 * and first dispatch are one transaction): locks the account, inserts `row` with `events` ({@link insertIntent})
 * unless the intent exists (a retry: it is then read locked), runs `work` on the intent row as withLockedIntent does
 * (`ahead` as there), and keeps the intent's head. Answers `work`'s result, the intent as recorded, before `work`
 * changed it, and whether this call inserted it (`inserted`; false: a retry found it recorded).
 * @throws Error when the account does not exist in the intent's tenant.
 */
export async function withRecordedIntent<T>(
  deps: Pick<PaperDeps, 'pool'>,
  row: Partial<OrderIntentRow> & Pick<OrderIntentRow, 'id' | 'tenantId' | 'accountId' | 'venue'>,
  events: NewEvent[],
  work: (tx: Sql, intent: OrderIntentRow, account: LockedAccount) => Promise<T>,
  metrics?: ActivityMetrics,
  ahead?: ReadsAhead,
): Promise<{ out: T; recorded: OrderIntentRow; inserted: boolean }> {
  const { out, reached, recorded, inserted } = await transaction(deps.pool, async (tx) => {
    // The insert (and `ahead`) go out behind the lock without waiting for it: PostgreSQL runs them after it.
    const sent = [lockAccountOf(tx, row), insertIntent(tx, row, events)] as const;
    ahead?.(tx);
    let [account, intent] = await Promise.all(sent);
    const inserted = intent !== null;
    if (!intent) ({ account, intent } = await lockAccountAndIntent(tx, row, row.id));
    const recorded = { ...intent };
    return { ...(await workOn(tx, intent, account, work)), recorded, inserted };
  });
  rememberIntentHead(row.id, row); // committed: a dispatch in this process needs no look-up before locking
  if (reached) metrics?.intentTerminal(row.venue, reached);
  return { out, recorded, inserted };
}

/**
 * The first part of a ledger write made in ONE statement (issue 15; migration LedgerLockAccount), `$1` the account,
 * `$2` its tenant: `ledger_lock_account` locks the account row as every ledger transaction does first and answers its
 * last event `seq`, read after the lock (null: no such account in that tenant). The statement's other parts name
 * `locked` in their condition, so PostgreSQL runs them after it; its events are numbered after {@link LOCKED_SEQ}.
 */
const LOCKED = `locked as materialized (select ledger_lock_account($1, $2) as seq)`;
const LOCKED_SEQ = '(select seq from locked)';

/**
 * Reads made in the statement that records a new intent ({@link recordIntentRow}), beside its insert (issue 15: one
 * statement instead of a second one in parallel): `ctes`, `name as (…)` parts separated by commas (data-modifying ones
 * allowed: they run at the statement's top level), `columns` selected over the joins `joins` (each `left join … on …`,
 * so the one row comes back whether or not the intent was inserted), placeholders from `$1` for `values`.
 */
export interface ReadsBeside {
  ctes: string;
  columns: string;
  joins: string;
  values: unknown[];
}

/**
 * ONE statement on `pool`: {@link LOCKED} for the account of `head`, then `part` as `name` (a data-modifying statement
 * with `returning`, placeholders from `$1`, naming `locked` in its condition), then `events` appended after the
 * account's last `seq` when `part` returned a row, then `select.ctes` when given (top-level `with` parts); answers the
 * rows of `select.text` (over `name` and those parts). `select`'s placeholders run from `$1` for `select.values`.
 */
async function afterAccountLock<R extends object>(
  pool: pg.Pool,
  head: Pick<OrderIntentRow, 'tenantId' | 'accountId'>,
  name: string,
  part: { text: string; values: unknown[] },
  events: NewEvent[],
  select: { ctes?: string; text: string; values?: unknown[] },
): Promise<R[]> {
  const when = `exists (select 1 from ${name})`;
  const appended = appendEventsStatement(head.tenantId, head.accountId, events, when, LOCKED_SEQ);
  const at = 2 + part.values.length + appended.values.length;
  const text = `with ${LOCKED}, ${name} as (${shiftPlaceholders(part.text, 2)}),
    appended as (${shiftPlaceholders(appended.text, 2 + part.values.length)})${select.ctes ? `, ${shiftPlaceholders(select.ctes, at)}` : ''}
    ${shiftPlaceholders(select.text, at)}`;
  const values = [head.accountId, head.tenantId, ...part.values, ...appended.values, ...(select.values ?? [])];
  return sqlOfClient(pool).rows<R>(text, values);
}

/**
 * Records a new intent `row` with its `events` as {@link withRecordedIntent} records one with no work, in ONE
 * statement and round trip (issue 15; the transaction took four: begin, lock, insert, commit): the account locked
 * ({@link LOCKED}), the intent inserted unless one with its id exists, its events appended only when it was. A call
 * that inserts nothing (a retry that finds the intent recorded, or an account not in the intent's tenant) records
 * through {@link withRecordedIntent}, which reads the stored intent locked or throws. With `beside`, that statement
 * also makes those reads, answered as `read` (the row of `beside.columns`; an empty object without `beside`). Answers
 * the intent as recorded and whether this call inserted it; keeps the intent's head.
 * @throws Error when the account does not exist in the intent's tenant.
 */
export async function recordIntentRow(
  deps: Pick<PaperDeps, 'pool'>,
  row: Partial<OrderIntentRow> & Pick<OrderIntentRow, 'id' | 'tenantId' | 'accountId' | 'venue'>,
  events: NewEvent[],
  beside?: ReadsBeside,
): Promise<{ recorded: OrderIntentRow; inserted: boolean; read: Record<string, unknown> }> {
  const known = Object.fromEntries(INTENT_PROPS.map((k) => [k, row[k as keyof OrderIntentRow]]));
  const returning = `on conflict (id) do nothing returning ${RETURNED_INTENT}`;
  const intent = insertStatement('order_intents', known, returning, 'locked where seq is not null');
  const select = beside
    ? {
        ctes: beside.ctes,
        text: `select inserted.*, ${beside.columns} from (select 1) one left join inserted on true ${beside.joins}`,
        values: beside.values,
      }
    : { text: 'select * from inserted' };
  const [answer] = await afterAccountLock<Record<string, unknown>>(deps.pool, row, 'inserted', intent, events, select);
  const read = beside ? answer : {};
  const stored = answer && answer.id != null ? (pickProps(answer, INTENT_PROPS) as unknown as OrderIntentRow) : null;
  if (!stored) {
    const { recorded, inserted } = await withRecordedIntent(deps, row, events, async () => undefined);
    return { recorded, inserted, read };
  }
  rememberIntentHead(row.id, row);
  return { recorded: stored, inserted: true, read };
}

/** The properties `props` of `row` (a statement's answer that holds other columns too). */
const pickProps = (row: Record<string, unknown>, props: readonly string[]) =>
  Object.fromEntries(props.map((k) => [k, row[k]]));

/**
 * Writes `changes` on an intent read outside the ledger's transactions (`seen`, as read) and appends `events`, in ONE
 * statement and round trip (issue 15), only while the stored intent is still in `seen`'s state and at its `updatedAt`:
 * the account locked first ({@link LOCKED}), then the intent by the update, as {@link withLockedIntent} takes them.
 * Answers false, having written nothing, when the intent moved on meanwhile (or its account is not in its tenant): the
 * caller records under {@link withLockedIntent} then. `changes` should stamp `updatedAt` ({@link intentEvent} does).
 */
export async function writeIfUnchanged(
  deps: Pick<PaperDeps, 'pool'>,
  seen: OrderIntentRow,
  changes: Partial<OrderIntentRow>,
  events: NewEvent[],
): Promise<boolean> {
  const update = updateStatement('order_intents', changes, {
    id: seen.id,
    state: seen.state,
    updatedAt: seen.updatedAt,
  });
  const changed = {
    text: `${update.text} and exists (select 1 from locked where seq is not null) returning id`,
    values: update.values,
  };
  const select = { text: 'select count(*)::int as n from changed' };
  const [{ n }] = await afterAccountLock<{ n: number }>(deps.pool, seen, 'changed', changed, events, select);
  return n === 1;
}

/** The position row of `intent`'s account, venue and symbol in `tx`; null when none yet. */
export async function positionOf(
  tx: Sql,
  intent: Pick<OrderIntentRow, 'accountId' | 'venue' | 'symbol'>,
): Promise<PositionRow | null> {
  const [row] = await tx.rows<PositionRow>(
    `select ${POSITION_COLUMNS} from positions p where p.account_id = $1 and p.venue = $2 and p.symbol = $3`,
    [intent.accountId, intent.venue, intent.symbol],
  );
  return row ?? null;
}

/** The balance row of `accountId` on `venue`, in `tx`; null when none yet. */
async function balanceOf(tx: Sql, accountId: string, venue: string): Promise<AccountBalanceRow | null> {
  const [row] = await tx.rows<AccountBalanceRow>(
    `select ${BALANCE_COLUMNS} from account_balances b where b.account_id = $1 and b.venue = $2`,
    [accountId, venue],
  );
  return row ?? null;
}

/** What a paper order's risk check, and the recording of a routed order's fills, read ({@link venueReads}). */
export interface VenueReads {
  /** The order's mark; null when there is none or it is older than the bound. */
  tick: MarkTick | null;
  /** Every position row (flat ones too) of the account on the venue. */
  positions: PositionRow[];
  /** The account's balance row on the venue; null when none yet. */
  balance: AccountBalanceRow | null;
}

/** {@link venueReads}'s statement: the mark, the balance and every position, one row per position (at least one). */
const VENUE_READS = `select ${markColumns('m', 'm.')}, ${selectList(BALANCE_PROPS, 'b', 'b.')},
    ${selectList(POSITION_PROPS, 'p', 'p.')}
  from (values (1)) o (x)
  left join marks m on m.venue = $2 and m.symbol = $3
  left join account_balances b on b.account_id = $1 and b.venue = $2
  left join positions p on p.account_id = $1 and p.venue = $2`;

/**
 * What an account holds on `intent`'s venue and the mark of its symbol, read in `tx` in ONE statement (issue 15; they
 * were three: the mark, the positions, the balance): the mark (at most `markMaxAgeMs` ms old at `now`, epoch ms), the
 * account's positions on the venue and its balance row there. A paper order's risk check reads them; so does the
 * recording of a routed order's fills.
 */
export async function venueReads(
  tx: Sql,
  intent: Pick<OrderIntentRow, 'accountId' | 'venue' | 'symbol'>,
  markMaxAgeMs: number,
  now = Date.now(),
): Promise<VenueReads> {
  const rows = await tx.rows<Record<string, unknown>>(VENUE_READS, venueReadsValues(intent));
  return {
    tick: markTickOf(prefixed<MarkRow>(rows[0], 'm.', 'ts'), intent.venue, intent.symbol, markMaxAgeMs, now),
    balance: prefixed<AccountBalanceRow>(rows[0], 'b.', 'accountId'),
    positions: rows.flatMap((row) => prefixed<PositionRow>(row, 'p.', 'accountId') ?? []),
  };
}

/** {@link VENUE_READS}' values for `intent`. */
const venueReadsValues = (intent: Pick<OrderIntentRow, 'accountId' | 'venue' | 'symbol'>) => [
  intent.accountId,
  intent.venue,
  intent.symbol,
];

/**
 * Sends {@link venueReads}' statement for `intent` ahead ({@link ReadsAhead}): a {@link venueReads} of the same intent
 * later in the transaction takes its answer, unless a write went out in between.
 */
export const prefetchVenueReads =
  (intent: Pick<OrderIntentRow, 'accountId' | 'venue' | 'symbol'>): ReadsAhead =>
  (tx) =>
    tx.prefetch(VENUE_READS, venueReadsValues(intent));

/**
 * The marks an account's state on `intent`'s venue is valued at, keyed `<venue> <symbol>` (USD): `mark` for the
 * intent's symbol, the stored marks (any age, one statement) of its other open positions among `positions` (a symbol
 * without one is absent and valued at its entry). Answers those other open positions too.
 */
export async function heldMarks(
  tx: Sql,
  intent: Pick<OrderIntentRow, 'venue' | 'symbol'>,
  positions: PositionRow[],
  mark: Decimal,
): Promise<{ marks: Map<string, Decimal>; others: PositionRow[] }> {
  const others = positions.filter((p) => p.symbol !== intent.symbol && !new Decimal(p.qty).isZero());
  const marks = await marksFor(tx, others);
  marks.set(`${intent.venue} ${intent.symbol}`, mark);
  return { marks, others };
}

/** The outcome already recorded on an intent (for retries and no-op wake-ups). */
export function outcomeOf(i: OrderIntentRow): DispatchOutcome {
  return {
    state: i.state as IntentState,
    resting: i.orderStatus === 'open',
    venueOrderId: i.venueOrderId ?? null,
    reason: i.rejectReason ?? undefined,
    filledQty: fmt(new Decimal(i.filledQty)),
    avgFillPrice: i.avgFillPrice ?? null,
  };
}

/** Marks an intent rejected before dispatch (risk), with its events, in `tx`. */
export async function rejectIntent(tx: Sql, intent: OrderIntentRow, reason: string): Promise<void> {
  Object.assign(intent, { state: 'rejected', orderStatus: 'rejected', rejectReason: reason, lastEvent: 'rejected' });
  await appendEvents(tx, intent.tenantId, intent.accountId, [intentEvent(intent, 'intent.rejected')]);
}

/** The `Order-Intent-Update` event of an intent's change (stamps `updatedAt`). */
export function intentEvent(intent: OrderIntentRow, kind: string): NewEvent {
  intent.updatedAt = new Date();
  return { kind, frameType: 'Order-Intent-Update', venue: intent.venue, data: intentToView(intent) };
}

/**
 * Ends an execution's transaction: appends its `/ws/risk` events (none: nothing appended) and, when it
 * recorded fills, the account's state snapshot (reason `fill`, docs/api.md §4.3 state history), valued from
 * `known` when the transaction already holds the venue's state after the fills (else read again).
 */
export async function commitExecution(
  tx: Sql,
  intent: OrderIntentRow,
  events: NewEvent[],
  filled: boolean,
  known?: KnownVenueState,
): Promise<void> {
  if (events.length) await appendEvents(tx, intent.tenantId, intent.accountId, events);
  if (filled)
    await recordStateSnapshot(
      tx,
      { tenantId: intent.tenantId, accountId: intent.accountId, venue: intent.venue, reason: 'fill' },
      known,
    );
}

/**
 * The `Open-Orders-Update` event of a change to `intent`'s working order: every open working order of its
 * account after this transaction's changes; the event's `venue` is the intent's (the order that changed).
 */
async function openOrdersEvent(tx: Sql, intent: OrderIntentRow): Promise<NewEvent> {
  await saveIntent(tx, intent); // the list must see this transaction's own change of the order
  const { accountId } = intent;
  const open = await tx.rows<OrderIntentRow>(
    `select ${INTENT_COLUMNS} from order_intents i
      where i.account_id = $1 and i.tenant_id = $2 and i.order_status = 'open' order by i.created_at`,
    [accountId, intent.tenantId],
  );
  return {
    kind: 'orders.open_changed',
    frameType: 'Open-Orders-Update',
    venue: intent.venue,
    data: { accountId, orders: open.map(workingOrderView) },
  };
}

/**
 * The `/ws/risk` events of `intent`'s move to `event` (already applied to the row): the {@link openOrdersEvent}
 * when its working order opened or closed (`wasOpen`: open before the move), then `intent.<event>`.
 */
export async function transitionEvents(
  tx: Sql,
  intent: OrderIntentRow,
  wasOpen: boolean,
  event: string,
): Promise<NewEvent[]> {
  const openOrders = wasOpen !== (intent.orderStatus === 'open') ? [await openOrdersEvent(tx, intent)] : [];
  return [...openOrders, intentEvent(intent, `intent.${event}`)];
}

/**
 * One execution to record: price (USD), qty (contracts), liquidity; routed venues add the fee the
 * venue charged (USD), its trade id and its execution time (epoch ms). Paper fills leave those out:
 * the tenant's fee schedule prices them and the platform mints the ids.
 */
export interface ExecutionToRecord {
  price: Decimal;
  qty: Decimal;
  liquidity: 'taker' | 'maker';
  feeUsd?: Decimal;
  venueTradeId?: string;
  at?: number;
}

/** What {@link recordFills} wrote: the Fill and Position-Changed events, the position and the balance row after the fills. */
export interface FillsRecorded {
  events: NewEvent[];
  position: PositionRow;
  balance: AccountBalanceRow;
}

/**
 * Records fills in `tx`: Fill rows (ids `<intentId>-<n>`), the net position, closed round trips,
 * the venue balance (realised PnL − fees, USD). `posRow` is the intent's position row (null: none yet).
 * `read`, what the caller read in this transaction: `balance` the account's balance row on the venue (null: none;
 * absent: read here); `feeSchedule` the tenant's, which prices a fill the venue reported no fee for (paper fills).
 * @throws Error when a fill has no venue fee and no `feeSchedule` was given (a caller's bug).
 */
export async function recordFills(
  tx: Sql,
  intent: OrderIntentRow,
  fills: ExecutionToRecord[],
  posRow: PositionRow | null,
  tick: MarkTick,
  read: { balance?: AccountBalanceRow | null; feeSchedule?: LockedAccount['feeSchedule'] } = {},
): Promise<FillsRecorded> {
  const ts = Date.now(); // execution time; the tick's own time is when the mark was published
  const schedule = read.feeSchedule;
  if (!schedule && !fills.every((f) => f.feeUsd)) throw new Error(`fills of ${intent.id} need the fee schedule`);
  const bps = { maker: new Decimal(schedule?.makerBps ?? 0), taker: new Decimal(schedule?.takerBps ?? 0) };
  // Fills and `filledQty` change together (here), so an intent with nothing filled has no fill row yet.
  const before = new Decimal(intent.filledQty).isZero()
    ? 0
    : (await tx.rows<{ n: number }>(`select count(*)::int as n from fills where intent_id = $1`, [intent.id]))[0].n;
  let position: PositionState = posRow
    ? {
        qty: new Decimal(posRow.qty),
        avgEntryPrice: new Decimal(posRow.avgEntryPrice),
        realizedPnl: new Decimal(posRow.realizedPnlUsd),
        openedAt: posRow.openedAt ? new Date(posRow.openedAt).getTime() : null,
      }
    : { qty: ZERO, avgEntryPrice: ZERO, realizedPnl: ZERO, openedAt: null };
  const balance = read.balance !== undefined ? read.balance : await balanceOf(tx, intent.accountId, intent.venue);
  let cash = new Decimal(balance?.balanceUsd ?? 0);
  /** Fees paid opening what is still open (USD); a close takes its pro-rata share into the trade. */
  let entryFees = new Decimal(posRow?.entryFeesUsd ?? 0);
  let filledQty = new Decimal(intent.filledQty);
  let notional = new Decimal(intent.avgFillPrice ?? 0).times(filledQty);
  const events: NewEvent[] = [];
  const at = new Date(ts);
  const owner = { tenantId: intent.tenantId, accountId: intent.accountId };

  for (const [k, f] of fills.entries()) {
    const id = `${intent.id}-${before + k + 1}`;
    const feeUsd = f.feeUsd ?? fee(f.price, f.qty, bps[f.liquidity]);
    /** The fee of part of this fill: the venue's fee pro rata, or the schedule's. */
    const feeOf = (qty: Decimal) => (f.feeUsd ? f.feeUsd.times(qty).div(f.qty) : fee(f.price, qty, bps[f.liquidity]));
    const realizedBefore = position.realizedPnl;
    const openBefore = position.qty.abs();
    const applied = applyFill(position, { side: intent.side as 'buy' | 'sell', qty: f.qty, price: f.price }, ts);
    position = applied.position;
    const realized = position.realizedPnl.minus(realizedBefore);
    cash = cash.plus(realized).minus(feeUsd);
    filledQty = filledQty.plus(f.qty);
    notional = notional.plus(f.price.times(f.qty));
    const fill: Row<typeof Fill> = {
      id,
      ...owner,
      intentId: intent.id,
      venue: intent.venue,
      symbol: intent.symbol,
      side: intent.side,
      qty: fmt(f.qty),
      price: fmt(f.price),
      feeUsd: fmt(feeUsd),
      liquidity: f.liquidity,
      venueOrderId: intent.venueOrderId ?? `paper-${intent.id}`,
      venueTradeId: f.venueTradeId ?? id,
      realizedPnlUsd: fmt(realized),
      executedAt: f.at ? new Date(f.at) : at,
    };
    await insertRow(tx, 'fills', fill);
    events.push({ kind: 'fill.executed', frameType: 'Fill', venue: intent.venue, data: fillView(fill) });
    const closedQty = applied.closed?.qty ?? ZERO;
    const entryShare = closedQty.isZero() || openBefore.isZero() ? ZERO : entryFees.times(closedQty).div(openBefore);
    entryFees = position.qty.isZero() ? ZERO : entryFees.minus(entryShare).plus(feeOf(f.qty.minus(closedQty)));
    if (applied.closed) {
      const c = applied.closed;
      await insertRow(tx, 'trades', {
        id: `${id}-t`,
        ...owner,
        venue: intent.venue,
        symbol: intent.symbol,
        side: c.side,
        qty: fmt(c.qty),
        entryPrice: fmt(c.entryPrice),
        exitPrice: fmt(c.exitPrice),
        realizedPnlUsd: fmt(c.realizedPnl),
        feesUsd: fmt(feeOf(c.qty).plus(entryShare)),
        openedAt: new Date(c.openedAt),
        closedAt: new Date(c.closedAt),
        exitFillId: id,
        source: 'platform',
      });
    }
  }

  intent.filledQty = fmt(filledQty);
  intent.avgFillPrice = fmt(notional.div(filledQty));
  const saved: PositionRow = {
    ...owner,
    venue: intent.venue,
    symbol: intent.symbol,
    qty: fmt(position.qty),
    avgEntryPrice: fmt(position.avgEntryPrice),
    realizedPnlUsd: fmt(position.realizedPnl),
    entryFeesUsd: fmt(entryFees),
    leverage: intent.leverage,
    openedAt: position.openedAt == null ? null : new Date(position.openedAt),
    updatedAt: at,
  };
  await insertRow(
    tx,
    'positions',
    saved,
    `on conflict (account_id, venue, symbol) do update set qty = excluded.qty, avg_entry_price = excluded.avg_entry_price,
       realized_pnl_usd = excluded.realized_pnl_usd, entry_fees_usd = excluded.entry_fees_usd,
       leverage = excluded.leverage, opened_at = excluded.opened_at, updated_at = excluded.updated_at`,
  );
  const balanceAfter: AccountBalanceRow = { ...owner, venue: intent.venue, balanceUsd: fmt(cash) };
  await insertRow(
    tx,
    'account_balances',
    balanceAfter,
    'on conflict (account_id, venue) do update set balance_usd = excluded.balance_usd',
  );
  events.push({
    kind: 'position.changed',
    frameType: 'Position-Changed',
    venue: intent.venue,
    data: positionView(saved, tick.mark),
  });
  return { events, position: saved, balance: balanceAfter };
}
