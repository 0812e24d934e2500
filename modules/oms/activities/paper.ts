/**
 * The paper venue, the platform's own matching engine: run the pure engine (domain/paper) against the
 * canonical mark and record the outcome through the ledger (./ledger.ts) — fills, position, round trips,
 * balance, intent state and `/ws/risk` events — in ONE transaction under the account lock.
 *
 * Idempotent by construction: a retried activity finds the intent already past the state it
 * expects and returns the recorded outcome, so a fill is never recorded twice.
 */
import { Decimal, ZERO } from '../../../domain/decimal.js';
import { matchOnArrival, matchOnMark, type MatchResult, type PaperOrder } from '../../../domain/paper/engine.js';
import type { IntentState, IntentView, OrderStatus } from '../../../domain/oms/intent.js';
import type { OrderIntentRow } from '../../../db/entities.js';
import type { Sql } from '../../../db/sql.js';
import type { NewEvent } from '../../../db/events.js';
import type { KnownVenueState } from '../../../db/state-snapshots.js';
import { readMark } from '../../../db/marks.js';
import type { DispatchOutcome, RiskVerdict } from '../../../activities/types.js';
import { riskInLock, type RiskCheck } from './oms.js';
import * as ledger from './ledger.js';
import { intentToView } from '../../../db/views.js';
import type { IntentWorkflowInput } from '../workflows/intent.definitions.js';

/** The order the engine sees: the intent's remaining quantity and its trigger state. */
function toPaperOrder(i: OrderIntentRow): PaperOrder {
  const d = (v: string | null | undefined) => (v == null ? undefined : new Decimal(v));
  return {
    side: i.side as PaperOrder['side'],
    type: i.type as PaperOrder['type'],
    qty: new Decimal(i.qty).minus(i.filledQty),
    price: d(i.price),
    triggerPrice: d(i.triggerPrice),
    stopLimitPrice: d(i.stopLimitPrice),
    reduceOnly: i.reduceOnly,
    timeInForce: i.timeInForce as PaperOrder['timeInForce'],
    triggered: i.triggered,
  };
}

/** How each engine result moves the intent: state, venue order status and the event name. */
const RESULT_EFFECT: Record<
  MatchResult['kind'],
  (filled: boolean) => { state: IntentState; orderStatus: OrderStatus; event: string }
> = {
  filled: () => ({ state: 'filled', orderStatus: 'filled', event: 'filled' }),
  partial_canceled: (filled) => ({
    state: filled ? 'filled' : 'canceled',
    orderStatus: 'canceled',
    event: 'remainder_canceled',
  }),
  resting: (filled) => ({ state: 'dispatched', orderStatus: 'open', event: filled ? 'partially_filled' : 'resting' }),
  canceled: () => ({ state: 'canceled', orderStatus: 'canceled', event: 'canceled' }),
  rejected: () => ({ state: 'rejected', orderStatus: 'rejected', event: 'rejected' }),
};

/**
 * Matches an intent on the paper venue and records the result, in its own transaction under the account lock
 * ({@link executeInLock}). `arrival`: the first dispatch (state must be `signed_pending_dispatch`); `mark`: a
 * resting working order woken by a mark crossing (orderStatus must be `open`). Answers the outcome and the account's
 * active challenge ({@link ledger.LockedAccount}`.challengeId`), which the activity nudges after a fill.
 */
export async function executePaper(
  deps: ledger.PaperDeps,
  intentId: string,
  mode: 'arrival' | 'mark',
): Promise<{ outcome: DispatchOutcome; challengeId: string | null }> {
  return ledger.withLockedIntent(
    deps,
    intentId,
    async (tx, intent, account) => ({
      outcome: await executeInLock(deps, tx, intent, mode, { feeSchedule: account.feeSchedule }),
      challengeId: account.challengeId,
    }),
    deps.metrics,
  );
}

/** What {@link checkAndExecutePaper} and {@link recordAndExecutePaper} answer: the verdict, the outcome when it passed, the account's active challenge. */
export interface CheckedExecution {
  risk: RiskVerdict;
  outcome?: DispatchOutcome;
  challengeId: string | null;
}

/** The risk check and, when it passes, the first match on arrival, in a transaction that holds the account and the intent. */
const checkAndExecuteInLock =
  (deps: ledger.PaperDeps) =>
  async (
    tx: Sql,
    intent: OrderIntentRow,
    { feeSchedule, challengeId }: ledger.LockedAccount,
  ): Promise<CheckedExecution> => {
    const { verdict: risk, ...read } = await riskInLock(tx, intent, deps.markMaxAgeMs);
    if (!risk.ok) return { risk, challengeId };
    return { risk, outcome: await executeInLock(deps, tx, intent, 'arrival', { ...read, feeSchedule }), challengeId };
  };

/**
 * The risk check ({@link riskInLock}) and, when it passes, the first match on arrival ({@link executeInLock}) in ONE
 * transaction under the account lock (issue 15): nothing changes the account between the check and the fill.
 * Answers the verdict and, when it passed, the outcome, with the account's active challenge as
 * {@link executePaper}; idempotent as both steps.
 */
export async function checkAndExecutePaper(deps: ledger.PaperDeps, intentId: string): Promise<CheckedExecution> {
  return ledger.withLockedIntent(deps, intentId, checkAndExecuteInLock(deps), deps.metrics);
}

/**
 * `recordIntent` ({@link ledger.composedIntent}), the risk check and the first match on arrival of a new paper intent
 * in ONE transaction (issue 15, patch `paper-record-and-dispatch`: one begin, account lock and commit fewer than
 * recording and then checking). Answers {@link CheckedExecution} and `view`, the intent as recorded (what compose
 * answers); a retry that finds the intent recorded answers it as it is and matches nothing twice.
 * @throws Error when the account does not exist in the intent's tenant (retried as any error).
 */
export async function recordAndExecutePaper(
  deps: ledger.PaperDeps,
  input: IntentWorkflowInput,
): Promise<CheckedExecution & { view: IntentView }> {
  const { row, event } = ledger.composedIntent(input);
  const { out, recorded } = await ledger.withRecordedIntent(
    deps,
    row,
    [event],
    checkAndExecuteInLock(deps),
    deps.metrics,
    ledger.prefetchVenueReads(row), // the risk check's reads
  );
  return { ...out, view: intentToView(recorded) };
}

/**
 * What a caller of {@link executeInLock} already read in its transaction, used instead of reading it again: the
 * risk check's reads ({@link RiskCheck}, absent on a crossing wake-up) and the tenant's fee schedule the account lock
 * read ({@link ledger.LockedAccount}).
 */
export type ReadInLock = Omit<RiskCheck, 'verdict'> & { feeSchedule: ledger.LockedAccount['feeSchedule'] };

/**
 * The paper engine's match of `intent` and its recording through the ledger, inside
 * {@link ledger.withLockedIntent}'s transaction (account and intent locked); see {@link executePaper} for `mode`.
 * An intent not in the state `mode` expects answers its recorded outcome (a retry, or a crossing that passed).
 * `read`: what this transaction read already ({@link ReadInLock}; the fee schedule always, from the account lock).
 */
export async function executeInLock(
  deps: ledger.PaperDeps,
  tx: Sql,
  intent: OrderIntentRow,
  mode: 'arrival' | 'mark',
  read: ReadInLock,
): Promise<DispatchOutcome> {
  if (mode === 'arrival' ? intent.state !== 'signed_pending_dispatch' : intent.orderStatus !== 'open')
    return ledger.outcomeOf(intent);
  const tick = read.tick ?? (await readMark(tx, intent.venue, intent.symbol, deps.markMaxAgeMs));
  if (!tick) {
    if (mode === 'mark') return ledger.outcomeOf(intent);
    await ledger.rejectIntent(tx, intent, 'no_mark');
    return ledger.outcomeOf(intent);
  }
  const posRow = read.positions
    ? (read.positions.find((p) => p.symbol === intent.symbol) ?? null)
    : await ledger.positionOf(tx, intent);
  const result = (mode === 'arrival' ? matchOnArrival : matchOnMark)(
    toPaperOrder(intent),
    tick,
    posRow ? new Decimal(posRow.qty) : ZERO,
  );
  const wasOpen = intent.orderStatus === 'open';
  const events: NewEvent[] = [];
  if (mode === 'arrival') {
    Object.assign(intent, { state: 'dispatched', venueOrderId: `paper-${intent.id}`, lastEvent: 'dispatched' });
    events.push(ledger.intentEvent(intent, 'intent.dispatched'));
  }
  if (
    result.kind === 'resting' &&
    result.fills.length === 0 &&
    mode === 'mark' &&
    result.order.triggered === intent.triggered
  ) {
    return ledger.outcomeOf(intent); // the crossing had passed by the time we looked: nothing changes
  }

  const fills = 'fills' in result ? result.fills : [];
  const recorded = fills.length ? await ledger.recordFills(tx, intent, fills, posRow, tick, read) : undefined;
  if (recorded) events.push(...recorded.events);
  const filled = new Decimal(intent.filledQty).gt(0);
  const effect = RESULT_EFFECT[result.kind](filled);
  Object.assign(intent, {
    state: effect.state,
    orderStatus: effect.orderStatus,
    lastEvent: effect.event,
    rejectReason: 'reason' in result ? result.reason : null,
    triggered: result.kind === 'resting' ? Boolean(result.order.triggered) : intent.triggered,
  });
  events.push(...(await ledger.transitionEvents(tx, intent, wasOpen, effect.event)));
  await ledger.commitExecution(tx, intent, events, fills.length > 0, recorded && stateAfter(read, recorded));
  return ledger.outcomeOf(intent);
}

/**
 * The venue's state after `recorded` as the risk check's reads of this transaction and the fills make it (the snapshot
 * is valued from it instead of reading it again); undefined when the risk check read nothing (a crossing wake-up).
 */
function stateAfter(read: ReadInLock, recorded: ledger.FillsRecorded): KnownVenueState | undefined {
  if (!read.positions || !read.marks) return undefined;
  const { position } = recorded;
  const positions = [...read.positions.filter((p) => p.symbol !== position.symbol), position];
  return { balanceUsd: recorded.balance.balanceUsd, positions, marks: read.marks };
}

/**
 * Cancels the working order of an intent (docs/api.md §4.4 cancel). Only an open order can be canceled;
 * otherwise the recorded outcome is returned unchanged (a fill that won the race stays a fill).
 */
export async function cancelPaper(deps: ledger.PaperDeps, intentId: string): Promise<DispatchOutcome> {
  return ledger.withLockedIntent(
    deps,
    intentId,
    async (tx, intent) => {
      if (intent.orderStatus !== 'open') return ledger.outcomeOf(intent);
      Object.assign(intent, { state: 'canceled', orderStatus: 'canceled', lastEvent: 'canceled', rejectReason: null });
      await ledger.commitExecution(tx, intent, await ledger.transitionEvents(tx, intent, true, 'canceled'), false);
      return ledger.outcomeOf(intent);
    },
    deps.metrics,
  );
}
