/**
 * Routed execution (docs/api.md §1): an intent on `hyperliquid`, `aster`, `polymarket` or `kalshi` is
 * signed with the account's agent key for that venue (a self-signed one, docs/api.md §3.1, by its
 * credential's own signer; reads and cancels stay the agent's) and sent to the exchange; `venueOrderId` and
 * `venueTradeId` are the exchange's. The venue's fills are recorded exactly like paper fills
 * (positions, round trips, balance, `/ws/risk` events), with the venue's fee and trade id.
 *
 * Idempotent dispatch: the client order id is derived from the intent id (`adapter.clientOrderId`) and written on
 * the intent (`venueClientOrderId`). An attempt that finds it already written, and every retry, first asks the venue
 * for that id and only places the order when the venue has never seen it, so a lost acknowledgement followed by a
 * retry never makes a second venue order; the first attempt of a fresh intent skips that lookup (nothing can have
 * been sent yet). In the compose's first workflow task (patch `routed-first-task-sends`) a new intent's order is sent
 * before the intent is recorded, and recorded `dispatched` with its client order id once the venue has it; a task run
 * again after its worker died, and the dispatch after a record that failed, ask the venue first. Fills are recorded
 * once per venue trade id.
 *
 * Network I/O happens outside the database transaction; the recording happens inside one, under
 * the account and intent locks (withLockedIntent), and re-reads the intent so a concurrent
 * cancel or sync never double-applies.
 */
import type pg from 'pg';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { Decimal, fmt } from '../../../domain/decimal.js';
import { isRouted, type IntentState } from '../../../domain/oms/intent.js';
import type { MarkTick } from '../../../domain/market/types.js';
import type { AgentWalletRow, OrderIntentRow } from '../../../db/entities.js';
import { currentAgent, currentAgentSql } from '../../../db/agent-wallets.js';
import { agentBlock } from '../../../domain/custody/agents.js';
import type { NewEvent } from '../../../db/events.js';
import { nextAgentNonce, nonceFloor, nonceUpsertSql } from '../../../db/agent-nonces.js';
import { markColumns, markTickOf, type MarkRow } from '../../../db/marks.js';
import { prefixed, sqlOfClient, type Sql } from '../../../db/sql.js';
import { open, type KeyRing } from '../../../domain/custody/vault.js';
import type { DispatchOutcome } from '../../../activities/types.js';
import { timedDispatch, type ActivityMetrics } from '../../../activities/metrics.js';
import {
  commitExecution,
  headOf,
  intentById,
  PREFIXED_INTENT_COLUMNS,
  intentEvent,
  outcomeOf,
  recordFills,
  rejectIntent,
  transitionEvents,
  composedIntent,
  withLockedIntent,
  prefetchVenueReads,
  recordIntentRow,
  writeIfUnchanged,
  type ReadsBeside,
  venueReads,
  heldMarks,
} from './ledger.js';
import type { KnownVenueState } from '../../../db/state-snapshots.js';
import { intentToView } from '../../../db/views.js';
import type { IntentView } from '../../../domain/oms/intent.js';
import type { IntentWorkflowInput } from '../workflows/intent.definitions.js';
import { ADAPTERS, NONCE_AT_PLACE, NONCE_UNIT } from '../../../venues/registry.js';
import { selfSignedOrder, venueOrderRequest } from '../../../venues/self-signed.js';
import { enterAgentLane, inAgentLane } from './agent-lane.js';
import { venueFetch } from '../../../venues/http.js';
import {
  VenueRejected,
  type AgentKey,
  type RoutedVenue,
  type VenueContext,
  type VenueFetch,
  type VenueFill,
  type VenueOrder,
} from '../../../venues/types.js';

/**
 * What routed execution needs: the worker's `pg` pool (the ledger's transactions and dispatch's reads, db/sql.ts), the
 * custody key ring, venue URLs and network, the venue HTTP client, and the worker's metrics (activities/metrics.ts).
 */
export interface RoutedDeps {
  /** The worker's `pg` pool the ledger's transactions and routed dispatch's reads run on (db/sql.ts). */
  pool: pg.Pool;
  markMaxAgeMs: number;
  ring: KeyRing | null;
  venues: { urls: Record<RoutedVenue, string>; network: 'mainnet' | 'testnet' };
  /** How venue requests are sent (default venues/http.ts `venueFetch`; the fault tests inject a failing one). */
  fetch?: VenueFetch;
  metrics?: ActivityMetrics;
}

/** The sealed venue API credentials of an agent (what `submitAuthorization` returned, modules/custody/activities/agents.ts). */
const API_CREDENTIALS = z.record(z.string(), z.string());

/**
 * The venue context of an agent: its key decrypted here, inside the activity, and dropped with the context when the
 * call ends (never logged, never returned; a Kalshi key's parsed KeyObject stays in the process, found only from the
 * decrypted PEM: venues/kalshi/signing.ts `privateKeyObject`). `firstNonce`, when given, is what its first
 * `nextNonce` answers (a nonce allocated already, in the agent's lane); later ones are allocated then.
 * @throws ApplicationFailure `custody_unconfigured` (non-retryable) without a key ring.
 */
export function venueContext(deps: RoutedDeps, agent: AgentWalletRow, firstNonce?: bigint): VenueContext {
  if (!deps.ring)
    throw ApplicationFailure.create({
      type: 'custody_unconfigured',
      message: 'AGENT_KEY_ENCRYPTION_KEYS is not configured',
      nonRetryable: true,
    });
  const venue = agent.venue as RoutedVenue;
  const secret = open(deps.ring, agent.encryptedKey);
  let allocated = firstNonce;
  const key: AgentKey =
    venue === 'kalshi'
      ? { kind: 'rsa', keyId: agent.agentAddress, privateKeyPem: secret }
      : { kind: 'evm', privateKey: secret as `0x${string}`, address: agent.agentAddress as `0x${string}` };
  return {
    baseUrl: deps.venues.urls[venue],
    network: deps.venues.network,
    agent: key,
    owner: agent.owner,
    apiCredentials: agent.encryptedApiCredentials
      ? API_CREDENTIALS.parse(JSON.parse(open(deps.ring, agent.encryptedApiCredentials)))
      : undefined,
    nextNonce: async (unit) => {
      const nonce = allocated;
      allocated = undefined;
      return nonce ?? nextAgentNonce(sqlOfClient(deps.pool), agent.id, unit ?? NONCE_UNIT[venue]);
    },
    fetch: deps.fetch ?? venueFetch,
  };
}

/** How a venue order status moves the intent (a table): state and whether it still rests. */
const STATUS_EFFECT: Record<VenueOrder['status'], (filled: boolean) => { state: IntentState; event: string }> = {
  open: (filled) => ({ state: 'dispatched', event: filled ? 'partially_filled' : 'resting' }),
  triggered: (filled) => ({ state: 'dispatched', event: filled ? 'partially_filled' : 'triggered' }),
  filled: () => ({ state: 'filled', event: 'filled' }),
  canceled: (filled) => ({ state: filled ? 'filled' : 'canceled', event: filled ? 'remainder_canceled' : 'canceled' }),
  expired: (filled) => ({ state: filled ? 'filled' : 'canceled', event: 'expired' }),
  rejected: () => ({ state: 'rejected', event: 'rejected' }),
};

/** A mark tick at `price` (USD), for recording fills of a symbol that has no stored mark (position frames carry one). */
const tickAtPrice = (intent: OrderIntentRow, price: Decimal): MarkTick => ({
  venue: intent.venue,
  symbol: intent.symbol,
  ts: Date.now(),
  mark: price,
  bid: price,
  ask: price,
  book: { bids: [], asks: [] },
});

/**
 * Records `fresh` venue fills of `intent` in `tx` (ledger.ts `recordFills`) from ONE read of what the account holds
 * on the venue and the symbol's mark (ledger.ts `venueReads`; issue 15: it was five statements with the snapshot's),
 * priced for position frames at `known` (the mark dispatch read), else the stored mark at any age, else the first
 * fill's price. Answers the fills' events and the venue's state after them, from which the snapshot is valued.
 */
async function recordVenueFills(
  tx: Sql,
  intent: OrderIntentRow,
  fresh: VenueFill[],
  known: MarkTick | undefined,
): Promise<{ events: NewEvent[]; after: KnownVenueState }> {
  const read = await venueReads(tx, intent, Number.MAX_SAFE_INTEGER);
  const tick = known ?? read.tick ?? tickAtPrice(intent, new Decimal(fresh[0].price));
  const { marks, others } = await heldMarks(tx, intent, read.positions, tick.mark);
  const recorded = await recordFills(
    tx,
    intent,
    fresh.map((f) => ({
      price: new Decimal(f.price),
      qty: new Decimal(f.qty),
      liquidity: 'taker' as const,
      feeUsd: new Decimal(f.feeUsd),
      venueTradeId: f.venueTradeId,
      at: f.time,
    })),
    read.positions.find((p) => p.symbol === intent.symbol) ?? null,
    tick,
    { balance: read.balance },
  );
  const after = { balanceUsd: recorded.balance.balanceUsd, positions: [...others, recorded.position], marks };
  return { events: recorded.events, after };
}

/**
 * Records what the venue reported about the intent's order: new fills (by venue trade id), the
 * order status, the intent state, and their events, in one transaction. `head` is the intent as
 * the activity loaded it (re-read under the lock here); `tick` the mark the caller already read, if
 * any. Returns the outcome.
 */
async function recordVenueState(
  deps: RoutedDeps,
  head: OrderIntentRow,
  order: VenueOrder,
  fills: VenueFill[],
  opts: { dispatching: boolean; tick?: MarkTick },
): Promise<DispatchOutcome> {
  const intentId = head.id;
  return withLockedIntent(
    deps,
    intentId,
    async (tx, intent) => {
      const events: NewEvent[] = [];
      const wasOpen = intent.orderStatus === 'open';
      // Fills are only recorded once dispatched: an intent dispatched just now has none yet.
      const first = opts.dispatching && intent.state === 'signed_pending_dispatch';
      if (first) {
        Object.assign(intent, { state: 'dispatched', venueOrderId: order.venueOrderId, lastEvent: 'dispatched' });
        events.push(intentEvent(intent, 'intent.dispatched'));
      }
      if (intent.state !== 'dispatched') return outcomeOf(intent); // terminal already: nothing more to record
      // Only this function records fills, and it always records an order status with them: an intent whose status is
      // still unrecorded (dispatched just now, or acknowledged by recordDispatched) has no fills to look up.
      const seen = new Set(
        first || intent.orderStatus === null
          ? []
          : (
              await tx.rows<{ venueTradeId: string }>(
                `select venue_trade_id as "venueTradeId" from fills where intent_id = $1`,
                [intentId],
              )
            ).map((f) => f.venueTradeId),
      );
      const fresh = fills
        .filter((f) => f.venueOrderId === order.venueOrderId && !seen.has(f.venueTradeId))
        .sort((a, b) => a.time - b.time);
      const recorded = fresh.length ? await recordVenueFills(tx, intent, fresh, opts.tick) : undefined;
      if (recorded) events.push(...recorded.events);
      const filled = new Decimal(intent.filledQty).gt(0);
      const effect = STATUS_EFFECT[order.status](filled);
      const orderStatus = order.status === 'triggered' ? 'open' : order.status;
      const changed = intent.orderStatus !== orderStatus || intent.state !== effect.state || fresh.length > 0;
      Object.assign(intent, {
        orderStatus,
        state: effect.state,
        rejectReason:
          order.status === 'rejected' ? `venue_rejected: ${order.reason ?? 'rejected'}` : intent.rejectReason,
      });
      if (changed) {
        intent.lastEvent = effect.event;
        events.push(...(await transitionEvents(tx, intent, wasOpen, effect.event)));
      }
      await commitExecution(tx, intent, events, fresh.length > 0, recorded?.after);
      return outcomeOf(intent);
    },
    deps.metrics,
    fills.length ? prefetchVenueReads(head) : undefined, // recordVenueFills' reads
  );
}

/** `intent` moved to `dispatched` as the venue's order `venueOrderId` (a copy) and its `intent.dispatched` event. */
function movedToDispatched(intent: OrderIntentRow, venueOrderId: string) {
  const moved = { ...intent, state: 'dispatched', venueOrderId, lastEvent: 'dispatched' };
  return { moved, event: intentEvent(moved, 'intent.dispatched') };
}

/**
 * Records that the venue acknowledged the order of `seen` (the intent as dispatch read it, pending dispatch; issue 15):
 * `dispatched` with its venue order id `venueOrderId` and the `intent.dispatched` event, on their own, so `/ws/risk` shows the order
 * at the venue while its fills are still being read (a market order's `filled` follows). ONE statement when the
 * intent is still as read (ledger.ts `writeIfUnchanged`), else a transaction under the locks that writes nothing when
 * the intent moved on already. The order status stays unrecorded (null) until {@link recordVenueState} writes what the
 * venue reported; a retried dispatch that finds an intent so ({@link acknowledgedOnly}) reads the order back instead
 * of placing it.
 */
async function recordDispatched(deps: RoutedDeps, seen: OrderIntentRow, venueOrderId: string): Promise<void> {
  const { moved, event } = movedToDispatched(seen, venueOrderId);
  const { state, lastEvent, updatedAt } = moved;
  if (await writeIfUnchanged(deps, seen, { state, venueOrderId, lastEvent, updatedAt }, [event])) return;
  await withLockedIntent(
    deps,
    seen.id,
    async (tx, intent) => {
      if (intent.state !== 'signed_pending_dispatch') return;
      const locked = movedToDispatched(intent, venueOrderId);
      Object.assign(intent, locked.moved);
      await commitExecution(tx, intent, [locked.event], false);
    },
    deps.metrics,
  );
}

/**
 * Records a NEW intent `intent` (as composed, its `composed` event) that the venue acknowledged as `venueOrderId`
 * before it was recorded (issue 15, a first task's dispatch): inserted already `dispatched`, with both events, in ONE
 * statement (ledger.ts `recordIntentRow`), so the order's first frame costs one statement after the venue's answer.
 * When the intent turns out recorded meanwhile it is moved to `dispatched` as {@link recordDispatched} moves one.
 */
async function recordSentIntent(
  deps: RoutedDeps,
  intent: OrderIntentRow,
  composed: NewEvent,
  venueOrderId: string,
): Promise<void> {
  const { moved, event } = movedToDispatched(intent, venueOrderId);
  const { recorded, inserted } = await recordIntentRow(deps, moved, [composed, event]);
  if (!inserted) await recordDispatched(deps, recorded, venueOrderId);
}

/** An intent whose order the venue acknowledged ({@link recordDispatched}) but whose status and fills are not recorded yet. */
const acknowledgedOnly = (intent: OrderIntentRow) =>
  intent.state === 'dispatched' && intent.orderStatus === null && intent.venueOrderId !== null;

/** Rejects an intent before dispatch (agent, mark or venue refusal), recording why. */
async function reject(deps: RoutedDeps, intentId: string, reason: string): Promise<DispatchOutcome> {
  return withLockedIntent(
    deps,
    intentId,
    async (tx, intent) => {
      if (intent.state === 'signed_pending_dispatch') await rejectIntent(tx, intent, reason);
      return outcomeOf(intent);
    },
    deps.metrics,
  );
}

/**
 * What a routed intent's dispatch reads, in ONE statement (issue 15; it was four, and a fifth write): the intent
 * (`$1`, columns prefixed `i.`), the mark of its symbol (`m.`), the account's current agent on its venue (`w.`), and,
 * as a side effect, the client order id (`$2`) written on the intent while it is pending dispatch unless one is there
 * already (PostgreSQL runs a data-modifying `with` part to completion whether or not the query reads it; the intent
 * read is of the statement's snapshot, so it shows whether an EARLIER attempt wrote the id).
 */
const DISPATCH_READS = `with claimed as (
    update order_intents set venue_client_order_id = $2
     where id = $1 and venue_client_order_id is null and state = 'signed_pending_dispatch' returning id
  )
  select ${PREFIXED_INTENT_COLUMNS}, ${markColumns('m', 'm.')}, w.*
    from order_intents i
    left join marks m on m.venue = i.venue and m.symbol = i.symbol
    left join lateral (${currentAgentSql('i.account_id', 'i.venue', 'w.')}) w on true
   where i.id = $1`;

/**
 * What a NEW routed intent's dispatch reads in the statement that records it (issue 15, activity
 * `recordAndDispatchRouted`; ledger.ts `recordIntentRow`'s `beside`): the mark of its symbol (`m.`) and the account's
 * current agent on its venue (`w.`); the intent is the row inserted, its client order id inserted with it. With a nonce
 * `floor` (the clock in the venue's nonce unit; null: none) it also allocates that agent's next nonce (`lastNonce`,
 * db/agent-nonces.ts), for a caller that holds the agent's signing lane.
 */
const recordReads = (accountId: string, venue: RoutedVenue, symbol: string, floor: string | null): ReadsBeside => ({
  ctes: `w as (${currentAgentSql('$1', '$2', 'w.')}),
    n as (${nonceUpsertSql(`select w."w.id", $4::bigint from w where $4::bigint is not null`)})`,
  columns: `${markColumns('m', 'm.')}, w.*, n."lastNonce"`,
  joins: `left join marks m on m.venue = $2 and m.symbol = $3 left join w on true left join n on true`,
  values: [accountId, venue, symbol, floor],
});

/**
 * What a NEW routed intent's dispatch reads BEFORE the intent is recorded (issue 15, `recordAndDispatchRouted` in the
 * workflow's first task; no lock taken), as its own statement: the reads of `beside` ({@link recordReads}: the mark,
 * the current agent, the nonce) and whether the intent `intentId` is recorded already (`recorded`).
 */
const readsBeforeRecord = (beside: ReadsBeside, intentId: string) => ({
  text: `with ${beside.ctes}
    select exists (select 1 from order_intents where id = $${beside.values.length + 1}) as recorded, ${beside.columns}
      from (select 1) one ${beside.joins}`,
  values: [...beside.values, intentId],
});

/** A place held in an agent's signing lane (agent-lane.ts) by a dispatch that allocated its order's nonce already. */
interface HeldLane {
  agentId: string;
  nonce: bigint | null;
  leave: () => void;
}

/** How long before the intent was created its order's fills are looked for (ms): a venue's clock may run behind ours. */
const CREATED_SKEW_MS = 60_000;
/** How long before an order was placed (by our clock) the fills of an order placed just now are looked for first (ms). */
const PLACED_SKEW_MS = 2_000;

/**
 * The venue's fills of one order. Hyperliquid and Polymarket list fills by account and time only, so a look-up since
 * the intent was created less {@link CREATED_SKEW_MS} returns every fill of the account in that minute and more, and
 * grows with its trading rate (issue 15: a minute at 25 orders/s is some 1,500 fills per look-up). An order placed just now
 * (`placedAt`, epoch ms by our clock) is looked up since `placedAt` less {@link PLACED_SKEW_MS} first; only when those
 * fills do not add up to what the venue reported filled (a venue clock further behind, or an order not filled at
 * once) is it looked up over the whole window.
 */
async function orderFills(
  ctx: VenueContext,
  venue: RoutedVenue,
  intent: OrderIntentRow,
  order: VenueOrder,
  placedAt?: number,
): Promise<VenueFill[]> {
  const since = (sinceMs: number) =>
    ADAPTERS[venue].fills(ctx, { sinceMs, symbol: intent.symbol, venueOrderId: order.venueOrderId });
  const created = intent.createdAt.getTime() - CREATED_SKEW_MS;
  if (placedAt === undefined) return since(created);
  const near = await since(placedAt - PLACED_SKEW_MS);
  const found = near.reduce((sum, f) => sum.plus(f.qty), new Decimal(0));
  return found.gt(0) && found.gte(order.filledQty) ? near : since(created);
}

/** @returns ApplicationFailure `intent_not_found` (non-retryable). */
const intentNotFound = (intentId: string) =>
  ApplicationFailure.create({ type: 'intent_not_found', message: `intent ${intentId} not found`, nonRetryable: true });

/** `venue` as a routed venue. @throws ApplicationFailure `venue_not_supported` (non-retryable) when it is not one. */
function routedVenueOf(venue: string, intentId: string): RoutedVenue {
  if (isRouted(venue)) return venue;
  throw ApplicationFailure.create({
    type: 'venue_not_supported',
    message: `${venue} is not a routed venue (intent ${intentId})`,
    nonRetryable: true,
  });
}

/** Whether the running activity is on its first attempt (false outside an activity: nothing is known then). */
function firstAttempt(): boolean {
  try {
    return Context.current().info.attempt === 1;
  } catch {
    return false;
  }
}

/** The activities of routed execution (registered by activities/index.ts). */
export function routedActivities(deps: RoutedDeps) {
  /** The intent (platform-wide lookup) and its venue's adapter. */
  async function load(intentId: string) {
    const intent = await intentById(sqlOfClient(deps.pool), intentId);
    if (!intent) throw intentNotFound(intentId);
    return { intent, venue: routedVenueOf(intent.venue, intentId), adapter: ADAPTERS[intent.venue as RoutedVenue] };
  }

  /**
   * Places a loaded intent's order: a self-signed one (signed at `sign-result`, docs/api.md §3.1) as
   * its signer signed it, priced against the mark at compose; any other signed by the agent in its
   * lane (taken here, unless `inLane`: the caller holds a place there), priced against `markPrice` (the mark at
   * dispatch); `acknowledged` hears the venue order id of an order the adapter reads back after the venue accepted it.
   */
  function place(
    ctx: VenueContext,
    intent: OrderIntentRow & { intentId: string },
    agentId: string,
    markPrice: string,
    { inLane = false, acknowledged }: { inLane?: boolean; acknowledged?: (venueOrderId: string) => void } = {},
  ): Promise<VenueOrder> {
    const signed = intent.venueSigning?.signature ? intent.venueSigning : null;
    if (signed) {
      const { self, order, auth } = selfSignedOrder(intent, signed);
      return self.place(ctx, order, auth, signed.signature!);
    }
    const adapter = ADAPTERS[intent.venue as RoutedVenue];
    const order = venueOrderRequest(intent, adapter.clientOrderId(intent.intentId), markPrice);
    const send = () => adapter.place(ctx, order, acknowledged);
    return inLane ? send() : inAgentLane(agentId, send);
  }

  /**
   * The work of `dispatchRouted` on an intent (its doc below). The client order id is written
   * on the intent (beside the mark and agent reads) before the first send; when it was already there
   * (an earlier attempt may have sent the order), this is a retry, or the caller says so (`maybeSent`: an attempt
   * that sent before recording may have sent it), the venue is asked for it first.
   */
  async function dispatch(intentId: string, venue: RoutedVenue, maybeSent = false): Promise<DispatchOutcome> {
    const clientOrderId = ADAPTERS[venue].clientOrderId(intentId);
    const [row] = await sqlOfClient(deps.pool).rows<Record<string, unknown>>(DISPATCH_READS, [intentId, clientOrderId]);
    const intent = row && prefixed<OrderIntentRow>(row, 'i.', 'id');
    if (!intent) throw intentNotFound(intentId);
    return dispatchRead(venue, intent, row, maybeSent || intent.venueClientOrderId !== null || !firstAttempt());
  }

  /**
   * Dispatches `intent` as read with its mark (`m.` columns of `reads`) and agent (`w.`): reads back an order an
   * earlier attempt left acknowledged, answers an intent past dispatch as it is, else checks the mark and the agent
   * and places the order, asking the venue for its client order id first when `maybeSent` (module doc). `lane`: a
   * place the caller holds in the signing lane of the agent compose checked, with the nonce allocated there; used when
   * that agent is the one read, and left once the order is placed (or at once when it is another). `unrecorded`: the
   * intent is not recorded yet (`intent` is the row to insert, with its client order id; this its `composed` event):
   * it is recorded `dispatched` in one statement once the venue has the order ({@link recordSentIntent}), else as
   * composed before its rejection is, or before a failure is thrown; a failed record fails the attempt.
   */
  async function dispatchRead(
    venue: RoutedVenue,
    intent: OrderIntentRow,
    reads: Record<string, unknown>,
    maybeSent: boolean,
    { lane, unrecorded }: { lane?: HeldLane; unrecorded?: { composed: NewEvent } } = {},
  ): Promise<DispatchOutcome> {
    const intentId = intent.id;
    let recording: Promise<unknown> | undefined;
    /** The intent recorded (as composed, when it was not yet). */
    const recorded = () =>
      (recording ??= unrecorded ? recordIntentRow(deps, intent, [unrecorded.composed]) : Promise.resolve());
    /** `dispatched` with the venue's order id recorded (with the intent, when it was not recorded yet). */
    const sent = (venueOrderId: string) =>
      unrecorded && !recording
        ? (recording = recordSentIntent(deps, intent, unrecorded.composed, venueOrderId))
        : recorded().then(() => recordDispatched(deps, intent, venueOrderId));
    const adapter = ADAPTERS[venue];
    const clientOrderId = adapter.clientOrderId(intentId);
    // An earlier attempt left the order acknowledged but unsettled (recordDispatched): read it back.
    if (acknowledgedOnly(intent)) return readBack({ intent, venue, adapter });
    if (intent.state !== 'signed_pending_dispatch') return outcomeOf(intent);
    const tick = markTickOf(prefixed<MarkRow>(reads, 'm.', 'ts'), venue, intent.symbol, deps.markMaxAgeMs);
    const agent = prefixed<AgentWalletRow>(reads, 'w.', 'id');
    if (!tick) return recorded().then(() => reject(deps, intentId, 'no_mark'));
    const blocked = agentBlock(agent);
    if (blocked) return recorded().then(() => reject(deps, intentId, blocked));
    const held = lane?.agentId === agent!.id ? lane : undefined;
    if (!held) lane?.leave(); // the agent changed since compose: its nonce is not this agent's, its lane not this one
    const ctx = venueContext(deps, agent!, held?.nonce ?? undefined);
    let order: VenueOrder | null;
    let placedAt: number | undefined; // set when this attempt placed the order
    // An adapter that reads the order back after the venue accepted it names it first: `dispatched` is recorded then.
    let early: Promise<void> | undefined;
    const acknowledged = (venueOrderId: string) => {
      early ??= sent(venueOrderId);
      early.catch(() => undefined); // awaited below, whatever the placing answers
    };
    try {
      order = maybeSent ? await adapter.findByClientOrderId(ctx, intent.symbol, clientOrderId) : null;
      if (!order) {
        placedAt = Date.now();
        const inLane = held !== undefined;
        order = await place(ctx, { ...intent, intentId }, agent!.id, fmt(tick.mark), { inLane, acknowledged });
      }
    } catch (err) {
      await early?.catch(() => undefined); // an acknowledged order's record ends before this attempt does
      await recorded();
      if (err instanceof VenueRejected) return reject(deps, intentId, `venue_rejected: ${err.reason}`);
      throw err;
    } finally {
      held?.leave();
    }
    if (order.status === 'open' && order.filledQty === '0') {
      await (early ?? recorded());
      return recordVenueState(deps, intent, order, [], { dispatching: true, tick });
    }
    // The venue holds the order: `dispatched` (with its venue order id) is recorded while its fills are read; the
    // attempt ends only once both have settled, so a failed read never leaves the recording running behind it.
    const [dispatched, fills] = await Promise.allSettled([
      early ?? sent(order.venueOrderId),
      orderFills(ctx, venue, intent, order, placedAt),
    ]);
    if (dispatched.status === 'rejected') throw dispatched.reason;
    if (fills.status === 'rejected') throw fills.reason;
    return recordVenueState(deps, intent, order, fills.value, { dispatching: true, tick });
  }

  /**
   * Reads a dispatched order back from its venue (status and fills since the intent was created) and records what
   * changed; the outcome as recorded when the agent is gone or the venue does not know the order.
   */
  async function readBack({ intent, venue, adapter }: Awaited<ReturnType<typeof load>>): Promise<DispatchOutcome> {
    const agent = await currentAgent(sqlOfClient(deps.pool), intent.accountId, venue);
    if (!agent || agent.status === 'pending_authorization') return outcomeOf(intent);
    const ctx = venueContext(deps, agent);
    const order = await adapter.status(ctx, intent.symbol, intent.venueOrderId!);
    if (!order) return outcomeOf(intent);
    return recordVenueState(deps, intent, order, await orderFills(ctx, venue, intent, order), { dispatching: false });
  }

  return {
    /**
     * First dispatch of a routed intent: checks the mark (`no_mark`, as checkRisk does for a routed
     * intent) and the agent (docs/api.md §7 agent codes), then places the order (a self-signed one
     * with its signer's signature, any other signed by the agent), after looking the
     * client order id up on the venue when an earlier attempt may have sent it (module doc). A venue
     * refusal rejects the intent with `venue_rejected: <the venue's reason>`; a transport failure
     * throws (the activity retries, and the retry finds the order if it landed). Each attempt's
     * duration goes to the dispatch latency of its venue (activities/metrics.ts). `maybeSent`: the venue is asked for
     * the client order id first on every attempt (the workflow says so after a `recordAndDispatchRouted` that may have
     * sent the order before its record failed).
     */
    async dispatchRouted(
      intentId: string,
      { maybeSent = false }: { maybeSent?: boolean } = {},
    ): Promise<DispatchOutcome> {
      // The venue from the intent's head (kept by recordIntent in this process, else read): the reads are one statement.
      const venue = routedVenueOf((await headOf(deps.pool, intentId)).venue, intentId);
      return timedDispatch(deps.metrics, venue, () => dispatch(intentId, venue, maybeSent));
    },

    /**
     * A new routed intent's record and first dispatch in ONE activity (issue 15; intents started since patch
     * `routed-record-and-dispatch`): the intent is recorded as `recordIntent` records it (one statement), with its client
     * order id, and its mark and agent are read in that statement ({@link recordReads}; where the venue signs a nonce of
     * ours, the nonce is allocated there too, in the signing lane of the agent compose checked, `input.agentId`); the
     * order is then placed as `dispatchRouted` places it. Answers what `recordIntent` answers (`view`, the intent as
     * recorded) and the dispatch's outcome. Idempotent as both: a call that finds the intent recorded already
     * dispatches it as `dispatchRouted` does (asking the venue for the client order id first when it was claimed).
     *
     * `firstTask` (patch `routed-first-task-sends`; absent before it): whether the workflow runs this in its first
     * workflow task, not a task run again after a worker died. Then, on the first attempt, nothing can have sent the
     * order yet: the reads come first in a statement that takes no lock ({@link readsBeforeRecord}), and when the intent is
     * not recorded yet the order is signed and sent BEFORE it is recorded; once the venue has it, the intent is
     * inserted already `dispatched` with both its events in one statement ({@link recordSentIntent}: one locked
     * statement per order fewer, and one fewer before its first frame); a rejection or a failure records it as
     * composed first. A record that fails fails the call (the workflow records the intent and dispatches it with
     * `maybeSent`). `firstTask` false: an earlier task may have sent the order unrecorded, so the venue is asked for the
     * client order id first.
     * @throws ApplicationFailure `venue_not_supported` (non-retryable) for a venue that is not routed; whatever
     *   dispatchRouted throws; the record's error.
     */
    async recordAndDispatchRouted(
      input: IntentWorkflowInput,
      { firstTask }: { firstTask?: boolean } = {},
    ): Promise<{ view: IntentView; outcome: DispatchOutcome }> {
      const venue = routedVenueOf(input.venue, input.intentId);
      const { row, event } = composedIntent(input);
      const claimed = { ...row, venueClientOrderId: ADAPTERS[venue].clientOrderId(input.intentId) };
      // On a venue whose orders sign a nonce of ours, the signing lane of the agent compose checked is taken first, so
      // the nonce is allocated in it beside the record (one statement's wait fewer before the order is signed).
      const laneAgent = NONCE_AT_PLACE[venue] ? input.agentId : undefined;
      const leave = laneAgent ? await enterAgentLane(laneAgent) : undefined;
      const held = (reads: Record<string, unknown>) => {
        const nonce = typeof reads.lastNonce === 'string' ? BigInt(reads.lastNonce) : null;
        return laneAgent && leave ? { agentId: laneAgent, nonce, leave } : undefined;
      };
      try {
        const floor = laneAgent ? nonceFloor(NONCE_UNIT[venue]).toString() : null;
        const beside = recordReads(row.accountId, venue, row.symbol, floor);
        if (firstTask === true && firstAttempt()) {
          const before = readsBeforeRecord(beside, row.id);
          const [reads] = await sqlOfClient(deps.pool).rows<Record<string, unknown>>(before.text, before.values);
          if (!reads.recorded) {
            const lane = held(reads);
            const intent = claimed as OrderIntentRow;
            const outcome = await timedDispatch(deps.metrics, venue, () =>
              dispatchRead(venue, intent, reads, false, { lane, unrecorded: { composed: event } }),
            );
            return { view: intentToView(intent), outcome };
          }
        }
        // The mark and the agent are read in the statement that records the intent, not after it: one statement's
        // wait fewer before the order is placed.
        const { recorded, inserted, read: reads } = await recordIntentRow(deps, claimed, [event], beside);
        const lane = held(reads);
        if (!inserted) leave?.();
        // An earlier task may have sent the order before recording it (`firstTask` false, above).
        const maybeSent = firstTask === false || !firstAttempt();
        // Recorded before (a modify's replacement, or an earlier call that may have sent the order): dispatch as
        // dispatchRouted does, which claims the client order id or, when it is there already, asks the venue first.
        const outcome = await timedDispatch(deps.metrics, venue, () =>
          inserted
            ? dispatchRead(venue, recorded, reads, maybeSent, { lane })
            : dispatch(input.intentId, venue, maybeSent),
        );
        return { view: intentToView(recorded), outcome };
      } finally {
        leave?.();
      }
    },

    /** Reads a resting routed order back from its venue (status and new fills) and records any change. */
    async syncRouted(intentId: string): Promise<DispatchOutcome> {
      const loaded = await load(intentId);
      if (loaded.intent.orderStatus !== 'open' || !loaded.intent.venueOrderId) return outcomeOf(loaded.intent);
      return readBack(loaded);
    },

    /**
     * Cancels a routed working order on its venue and records the final state (a fill that won
     * the race is recorded as a fill). A venue refusal leaves the order as the venue reports it.
     */
    async cancelRouted(intentId: string): Promise<DispatchOutcome> {
      const { intent, venue, adapter } = await load(intentId);
      if (intent.orderStatus !== 'open' || !intent.venueOrderId) return outcomeOf(intent);
      const agent = await currentAgent(sqlOfClient(deps.pool), intent.accountId, venue);
      if (!agent || agent.status === 'pending_authorization') return outcomeOf(intent);
      const ctx = venueContext(deps, agent);
      let order: VenueOrder | null;
      try {
        order = await inAgentLane(agent.id, () => adapter.cancel(ctx, intent.symbol, intent.venueOrderId!));
      } catch (err) {
        if (!(err instanceof VenueRejected)) throw err;
        order = await adapter.status(ctx, intent.symbol, intent.venueOrderId);
        if (!order) return outcomeOf(intent);
      }
      return recordVenueState(deps, intent, order, await orderFills(ctx, venue, intent, order), { dispatching: false });
    },
  };
}
