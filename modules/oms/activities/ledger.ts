/**
 * The ledger of every venue: what an execution changes on the platform's books — fills, the net
 * position, closed round trips (trades), the venue balance, the intent's state and the `/ws/risk`
 * events — written in ONE transaction of the intent's tenant under the account lock. The paper
 * engine (./paper.ts) and routed dispatch (./routed.ts) both record through it.
 *
 * Idempotent by construction: a retried activity finds the intent already past the state it
 * expects and returns the recorded outcome, so a fill is never recorded twice.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
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
  Tenant,
  Trade,
  type AccountBalanceRow,
  type OrderIntentRow,
  type PositionRow,
} from '../../../db/entities.js';
import { scoped, platformEm } from '../../../db/orm.js';
import { BoundedMap } from '../../../domain/bounded-map.js';
import { fillView, intentToView, positionView, workingOrderView } from '../../../db/views.js';
import { recordStateSnapshot, type KnownVenueState } from '../../../db/state-snapshots.js';
import { appendEvents, type NewEvent } from '../../../db/events.js';
import type { DispatchOutcome } from '../../../activities/types.js';
import type { ActivityMetrics } from '../../../activities/metrics.js';

/** What the paper venue needs; `metrics` counts intents reaching a terminal state (activities/metrics.ts). */
export interface PaperDeps {
  orm: MikroORM;
  markMaxAgeMs: number;
  metrics?: ActivityMetrics;
}

const isTerminal = (state: string) => (TERMINAL_STATES as readonly string[]).includes(state);

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

/** Keeps the head of intent `intentId` (see {@link heads}); recordIntent calls it for each intent it inserts. */
export function rememberIntentHead(intentId: string, head: IntentHead): void {
  heads.set(
    intentId,
    { tenantId: head.tenantId, accountId: head.accountId, venue: head.venue },
    Date.now() + HEAD_KEEP_MS,
  );
}

/** The head of intent `intentId`, kept or read. @throws ApplicationFailure `intent_not_found` (non-retryable). */
async function headOf(orm: MikroORM, intentId: string): Promise<IntentHead> {
  const kept = heads.get(intentId);
  if (kept) return kept.value;
  const row = await platformEm(orm).findOne(OrderIntent, { id: intentId }, { filters: false });
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
 * Locks the intent's account row (`for update of` the account only: neither the tenant nor the prop account row is
 * locked) as db/events.ts `lockAccount` does, reading {@link LockedAccount} with it.
 * @throws Error when the account does not exist in the intent's tenant (a broken intent row; retried as any error).
 */
async function lockForExecution(em: EntityManager, head: IntentHead): Promise<LockedAccount> {
  const [row] = await em
    .getConnection()
    .execute<{ fee_schedule: LockedAccount['feeSchedule']; challenge_id: string | null }[]>(
      `select t.fee_schedule,
            (select pa.id from prop_accounts pa where pa.account_id = a.id and pa.status = 'active' limit 1) as challenge_id
       from accounts a join tenants t on t.id = a.tenant_id
      where a.id = ? and a.tenant_id = ?
        for update of a`,
      [head.accountId, head.tenantId],
      'all',
      em.getTransactionContext(),
    );
  if (!row) throw new Error(`account ${head.accountId} of tenant ${head.tenantId} not found`);
  return { feeSchedule: row.fee_schedule, challengeId: row.challenge_id };
}

/**
 * Runs `work` in a transaction of the intent's tenant with the account and the intent locked; `work` also gets what
 * the account lock read ({@link LockedAccount}). Every terminal transition of an intent happens in here, so when
 * `work` moved the intent into a terminal state, `metrics.intentTerminal` hears of it once the transaction has committed.
 */
export async function withLockedIntent<T>(
  orm: MikroORM,
  intentId: string,
  work: (em: EntityManager, intent: OrderIntentRow, account: LockedAccount) => Promise<T>,
  metrics?: ActivityMetrics,
): Promise<T> {
  const head = await headOf(orm, intentId);
  let reached: IntentState | undefined;
  const result = await scoped(orm, head.tenantId).transactional(async (em) => {
    const account = await lockForExecution(em, head);
    const intent = await em.findOneOrFail(OrderIntent, { id: intentId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const before = intent.state;
    const out = await work(em, intent, account);
    reached = !isTerminal(before) && isTerminal(intent.state) ? (intent.state as IntentState) : undefined;
    return out;
  });
  if (reached) metrics?.intentTerminal(head.venue, reached);
  return result;
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

/** Marks an intent rejected before dispatch (risk), with its events. */
export async function rejectIntent(em: EntityManager, intent: OrderIntentRow, reason: string): Promise<void> {
  Object.assign(intent, { state: 'rejected', orderStatus: 'rejected', rejectReason: reason, lastEvent: 'rejected' });
  await appendEvents(em, intent.tenantId, intent.accountId, [intentEvent(intent, 'intent.rejected')]);
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
  em: EntityManager,
  intent: OrderIntentRow,
  events: NewEvent[],
  filled: boolean,
  known?: KnownVenueState,
): Promise<void> {
  if (events.length) await appendEvents(em, intent.tenantId, intent.accountId, events);
  if (filled)
    await recordStateSnapshot(
      em,
      { tenantId: intent.tenantId, accountId: intent.accountId, venue: intent.venue, reason: 'fill' },
      known,
    );
}

/**
 * The `Open-Orders-Update` event of a change to `intent`'s working order: every open working order of its
 * account after this transaction's changes; the event's `venue` is the intent's (the order that changed).
 */
async function openOrdersEvent(
  em: EntityManager,
  intent: Pick<OrderIntentRow, 'accountId' | 'venue'>,
): Promise<NewEvent> {
  await em.flush(); // the list must see this transaction's own change of the order
  const { accountId } = intent;
  const open = await em.find(OrderIntent, { accountId, orderStatus: 'open' }, { orderBy: { createdAt: 'asc' } });
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
  em: EntityManager,
  intent: OrderIntentRow,
  wasOpen: boolean,
  event: string,
): Promise<NewEvent[]> {
  const openOrders = wasOpen !== (intent.orderStatus === 'open') ? [await openOrdersEvent(em, intent)] : [];
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
 * Records fills: Fill rows (ids `<intentId>-<n>`), the net position, closed round trips,
 * the venue balance (realised PnL − fees, USD). `posRow` is the intent's position row (null: none yet).
 * `read`, what the caller read in this transaction: `balance` the account's balance row on the venue (null: none;
 * absent: read here); `feeSchedule` the tenant's (absent: read here when a fill has no venue fee).
 */
export async function recordFills(
  em: EntityManager,
  intent: OrderIntentRow,
  fills: ExecutionToRecord[],
  posRow: PositionRow | null,
  tick: MarkTick,
  read: { balance?: AccountBalanceRow | null; feeSchedule?: LockedAccount['feeSchedule'] } = {},
): Promise<FillsRecorded> {
  const ts = Date.now(); // execution time; the tick's own time is when the mark was published
  const schedule =
    read.feeSchedule ??
    (fills.every((f) => f.feeUsd) ? null : (await em.findOneOrFail(Tenant, { id: intent.tenantId })).feeSchedule);
  const bps = { maker: new Decimal(schedule?.makerBps ?? 0), taker: new Decimal(schedule?.takerBps ?? 0) };
  // Fills and `filledQty` change together (here), so an intent with nothing filled has no fill row yet.
  const before = new Decimal(intent.filledQty).isZero() ? 0 : await em.count(Fill, { intentId: intent.id });
  let position: PositionState = posRow
    ? {
        qty: new Decimal(posRow.qty),
        avgEntryPrice: new Decimal(posRow.avgEntryPrice),
        realizedPnl: new Decimal(posRow.realizedPnlUsd),
        openedAt: posRow.openedAt?.getTime() ?? null,
      }
    : { qty: ZERO, avgEntryPrice: ZERO, realizedPnl: ZERO, openedAt: null };
  const balance =
    read.balance !== undefined
      ? read.balance
      : await em.findOne(AccountBalance, { accountId: intent.accountId, venue: intent.venue });
  let cash = new Decimal(balance?.balanceUsd ?? 0);
  /** Fees paid opening what is still open (USD); a close takes its pro-rata share into the trade. */
  let entryFees = new Decimal(posRow?.entryFeesUsd ?? 0);
  let filledQty = new Decimal(intent.filledQty);
  let notional = new Decimal(intent.avgFillPrice ?? 0).times(filledQty);
  const events: NewEvent[] = [];
  const at = new Date(ts);

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
    const fill = em.create(Fill, {
      id,
      tenantId: intent.tenantId,
      accountId: intent.accountId,
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
    });
    events.push({ kind: 'fill.executed', frameType: 'Fill', venue: intent.venue, data: fillView(fill) });
    const closedQty = applied.closed?.qty ?? ZERO;
    const entryShare = closedQty.isZero() || openBefore.isZero() ? ZERO : entryFees.times(closedQty).div(openBefore);
    entryFees = position.qty.isZero() ? ZERO : entryFees.minus(entryShare).plus(feeOf(f.qty.minus(closedQty)));
    if (applied.closed) {
      const c = applied.closed;
      em.create(Trade, {
        id: `${id}-t`,
        tenantId: intent.tenantId,
        accountId: intent.accountId,
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
      });
    }
  }

  intent.filledQty = fmt(filledQty);
  intent.avgFillPrice = fmt(notional.div(filledQty));
  const values = {
    qty: fmt(position.qty),
    avgEntryPrice: fmt(position.avgEntryPrice),
    realizedPnlUsd: fmt(position.realizedPnl),
    entryFeesUsd: fmt(entryFees),
    leverage: intent.leverage,
    openedAt: position.openedAt == null ? null : new Date(position.openedAt),
  };
  const saved = posRow
    ? Object.assign(posRow, values)
    : em.create(Position, {
        accountId: intent.accountId,
        venue: intent.venue,
        symbol: intent.symbol,
        tenantId: intent.tenantId,
        ...values,
      });
  const balanceAfter = balance
    ? Object.assign(balance, { balanceUsd: fmt(cash) })
    : em.create(AccountBalance, {
        accountId: intent.accountId,
        venue: intent.venue,
        tenantId: intent.tenantId,
        balanceUsd: fmt(cash),
      });
  saved.updatedAt = at;
  events.push({
    kind: 'position.changed',
    frameType: 'Position-Changed',
    venue: intent.venue,
    data: positionView(saved, tick.mark),
  });
  return { events, position: saved, balance: balanceAfter };
}
