/**
 * After a chaos run (scripts/lib/chaos/run.ts): what the platform's database, the venue simulators and
 * Temporal hold, checked against one another and against what the driver was answered
 * (scripts/lib/chaos/workload.ts). Every finding is a line in one of three lists:
 * - `lost`: an intent the api answered 201 for that has no row; a venue order the platform recorded that the
 *   simulator does not hold, or one the simulator holds that its intent has no venue order id for; a paper position that is not the sum of its fills; a gap in an account's event
 *   log, an intent whose last event does not show its state, a fill without its `fill.executed` event; an
 *   account event the webhook receiver never got (after deduplication by event id).
 * - `duplicated`: two intents with one client order id (a retried compose that made a second order); a
 *   simulator holding two orders under one client order id, or one no intent names; an intent filled beyond its
 *   size or its `filledQty`; a batch leg run twice.
 * - `stuck`: an intent neither terminal nor working; a running intent workflow whose order is not working,
 *   or a working order without its workflow; a batch that has not finished; a bracket whose workflow and
 *   state disagree; a webhook delivery still pending.
 */
import type pg from 'pg';
import type { Client } from '@temporalio/client';
import { Decimal } from '../../../domain/decimal.js';
import { ROUTED_VENUES, type RoutedVenue } from '../../../domain/oms/intent.js';
import { batchWorkflowId } from '../../../modules/oms/workflows/batch.definitions.js';
import type { BatchOutcome } from '../../../modules/oms/workflows/batch.definitions.js';
import { bracketWorkflowId } from '../../../modules/oms/workflows/bracket.definitions.js';
import { intentWorkflowId } from '../../../modules/oms/workflows/intent.definitions.js';
import type { ChaosAccount, WorkLog, apiClient } from './workload.js';

/** What the reconciliation reads. */
export interface ReconcileInput {
  /** A connection to the platform's database. */
  db: pg.Client;
  tenantId: string;
  /** The run's accounts. */
  accounts: ChaosAccount[];
  log: WorkLog;
  /** Orders each simulator ever accepted, per client order id (simulators/harness.ts `clientOrderIds`). */
  venueOrders: (venue: RoutedVenue) => ReadonlyMap<string, number>;
  temporal: Client;
  /** The webhook endpoint registered before the run and what its receiver got: event id → deliveries. */
  webhook: { endpointId: string; received: Map<string, number> };
  call: ReturnType<typeof apiClient>;
}

/** The findings and the figures of a reconciliation. */
export interface Reconciliation {
  intents: number;
  batches: number;
  fills: number;
  events: number;
  lost: string[];
  duplicated: string[];
  stuck: string[];
  /** Deliveries beyond the first per event id (the receiver deduplicates them; at-least-once is the contract). */
  webhookRedeliveries: number;
  /** Running workflows by kind (the id's prefix) when the reconciliation ran. */
  running: Record<string, number>;
}

interface IntentRow {
  id: string;
  account_id: string;
  venue: string;
  type: string;
  state: string;
  order_status: string | null;
  venue_order_id: string | null;
  client_order_id: string | null;
  venue_client_order_id: string | null;
  batch_id: string | null;
  qty: string;
  filled_qty: string;
}

const TERMINAL = new Set(['filled', 'canceled', 'rejected']);
/** A working order: dispatched and resting on its venue (or its trigger not reached yet). */
const working = (i: IntentRow) => i.state === 'dispatched' && (i.order_status === 'open' || i.order_status === null);

/** Groups `rows` by `key`. */
function groupBy<T>(rows: T[], key: (r: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) out.set(key(r), [...(out.get(key(r)) ?? []), r]);
  return out;
}

/** The ids of every running workflow of the namespace. */
async function runningWorkflows(temporal: Client): Promise<string[]> {
  const ids: string[] = [];
  for await (const w of temporal.workflow.list({ query: `ExecutionStatus = 'Running'` })) ids.push(w.workflowId);
  return ids;
}

/**
 * Whether a batch's legs ended in plan order, given each leg's action and the account-event `seq` of its terminal
 * event (-1: none): the close and open legs, which the batch runs as its own child intents one after another, end
 * strictly in plan order, and every cancel leg ends before the first of them; every leg that ran has ended. Cancel legs are not ordered among
 * themselves: cancelling one leg of a bracket makes the bracket cancel the other (its OCO) at once, so that other
 * leg's own cancel leg, later in the plan, finds it canceled already (a short chaos run saw `cancel 120, cancel 124,
 * cancel 128, cancel 122, cancel 126, close 141, open 145, open 149`: two brackets' take-profits, a limit, their stops).
 */
export function legsEndedInOrder(legs: readonly { action: string; seq: number }[]): boolean {
  const placed = legs.filter((l) => l.action !== 'cancel').map((l) => l.seq);
  const firstPlaced = placed[0] ?? Number.POSITIVE_INFINITY;
  return (
    legs.every((l) => l.seq >= 0 && (l.action !== 'cancel' || l.seq < firstPlaced)) &&
    placed.every((seq, i) => i === 0 || seq > placed[i - 1])
  );
}

/** Runs every check (module doc). */
export async function reconcile(input: ReconcileInput): Promise<Reconciliation> {
  const { db, tenantId, log } = input;
  const lost: string[] = [];
  const duplicated: string[] = [];
  const stuck: string[] = [];
  const q = async <T>(sql: string, params: unknown[] = [tenantId]) => (await db.query(sql, params)).rows as T[];

  const intents = await q<IntentRow>(
    `select id, account_id, venue, type, state, order_status, venue_order_id, client_order_id, venue_client_order_id, batch_id, qty::text, filled_qty::text
       from order_intents where tenant_id = $1`,
  );
  const byId = new Map(intents.map((i) => [i.id, i]));
  const fills = await q<{
    id: string;
    intent_id: string;
    account_id: string;
    venue: string;
    symbol: string;
    side: string;
    qty: string;
  }>(`select id, intent_id, account_id, venue, symbol, side, qty::text from fills where tenant_id = $1`);
  const events = await q<{
    account_id: string;
    seq: number;
    kind: string;
    intent_id: string | null;
    state: string | null;
    fill_id: string | null;
  }>(
    `select account_id, seq, kind, data->>'intentId' as intent_id, data->>'state' as state, data->>'fillId' as fill_id
       from account_events where tenant_id = $1 order by account_id, seq`,
  );

  // Intents: every 201 has its row; one row per client order id; each intent terminal or working.
  for (const [id, sent] of log.intents)
    if (!byId.has(id)) lost.push(`intent ${id} (account ${sent.accountId}) was answered 201 but has no row`);
  for (const [coid, rows] of groupBy(
    intents.filter((i) => i.client_order_id),
    (i) => i.client_order_id!,
  ))
    if (rows.length > 1)
      duplicated.push(`client order id ${coid}: ${rows.length} intents (${rows.map((r) => r.id).join(', ')})`);

  // Batches: each finished, its legs run in plan order, each once.
  const notRun = new Set<string>();
  for (const b of log.batches) {
    const handle = input.temporal.workflow.getHandle(batchWorkflowId(b.batchId));
    const status = (await handle.describe()).status.name;
    if (status !== 'COMPLETED') {
      stuck.push(`batch ${b.batchId} (${b.kind}) is ${status}`);
      continue;
    }
    const outcome = (await handle.result()) as BatchOutcome;
    const ns = outcome.legs.map((l) => l.n);
    if (new Set(ns).size !== ns.length) duplicated.push(`batch ${b.batchId}: legs ${ns.join(',')} (one ran twice)`);
    if (ns.some((n, i) => n !== b.legs[i]?.n))
      stuck.push(`batch ${b.batchId}: legs ran as ${ns.join(',')}, planned ${b.legs.map((l) => l.n).join(',')}`);
    // A close that did not fill stops the batch: the legs after it never run (recorded, never dispatched).
    for (const leg of b.legs.slice(ns.length)) notRun.add(leg.intentId);
    const ended = outcome.legs.map((l) => ({
      action: l.action,
      seq: events.find((e) => e.intent_id === l.intentId && TERMINAL.has(e.state ?? ''))?.seq ?? -1,
    }));
    if (!legsEndedInOrder(ended))
      stuck.push(
        `batch ${b.batchId}: legs ended out of order (${ended.map((l) => `${l.action} ${l.seq}`).join(', ')})`,
      );
  }
  for (const i of intents)
    if (!TERMINAL.has(i.state) && !working(i) && !notRun.has(i.id))
      stuck.push(`intent ${i.id} (${i.venue} ${i.type}) is ${i.state}/${i.order_status ?? '-'}`);

  // Fills: no intent filled beyond its size or its filledQty; paper positions are the sums of their fills.
  const fillsOf = groupBy(fills, (f) => f.intent_id);
  for (const [intentId, fs] of fillsOf) {
    const i = byId.get(intentId);
    const sum = fs.reduce((s, f) => s.plus(f.qty), new Decimal(0));
    if (i && (!sum.eq(i.filled_qty) || sum.gt(i.qty)))
      duplicated.push(
        `intent ${intentId}: fills sum to ${sum.toFixed()} against filledQty ${i.filled_qty} of ${i.qty}`,
      );
  }
  const positions = await q<{ account_id: string; symbol: string; qty: string }>(
    `select account_id, symbol, qty::text from positions where tenant_id = $1 and venue = 'paper'`,
  );
  const held = new Map(positions.map((p) => [`${p.account_id} ${p.symbol}`, new Decimal(p.qty)]));
  const fromFills = new Map<string, Decimal>();
  for (const f of fills.filter((x) => x.venue === 'paper')) {
    const k = `${f.account_id} ${f.symbol}`;
    fromFills.set(k, (fromFills.get(k) ?? new Decimal(0)).plus(f.side === 'buy' ? f.qty : new Decimal(f.qty).neg()));
  }
  for (const k of new Set([...held.keys(), ...fromFills.keys()])) {
    const [h, f] = [held.get(k) ?? new Decimal(0), fromFills.get(k) ?? new Decimal(0)];
    if (!h.eq(f)) lost.push(`paper position ${k}: ${h.toFixed()} held, fills sum to ${f.toFixed()}`);
  }

  // Venue simulators: exactly one venue order per client order id, and each one the platform's.
  for (const venue of ROUTED_VENUES) {
    const atVenue = input.venueOrders(venue);
    const platform = new Map(
      intents.filter((i) => i.venue === venue && i.venue_client_order_id).map((i) => [i.venue_client_order_id!, i]),
    );
    for (const [coid, n] of atVenue) {
      if (n > 1) duplicated.push(`${venue}: ${n} venue orders under client order id ${coid}`);
      if (!platform.has(coid)) duplicated.push(`${venue}: a venue order under ${coid}, which no intent names`);
      else if (!platform.get(coid)!.venue_order_id)
        lost.push(`${venue}: intent ${platform.get(coid)!.id} has no venue order id, the venue holds ${coid}`);
    }
    for (const [coid, i] of platform)
      if (i.venue_order_id && !atVenue.has(coid))
        lost.push(`${venue}: intent ${i.id}'s order ${coid} is not at the venue`);
  }

  // The event log: gap-free per account; each intent's last event shows its state; each fill has its event.
  for (const [account, es] of groupBy(events, (e) => e.account_id))
    es.forEach((e, i) => {
      if (e.seq !== i + 1) lost.push(`account ${account}: event seq ${e.seq} at position ${i + 1} (a gap)`);
    });
  const lastState = new Map<string, string>();
  for (const e of events) if (e.intent_id && e.state) lastState.set(e.intent_id, e.state);
  for (const i of intents)
    if (lastState.get(i.id) !== i.state)
      lost.push(`intent ${i.id}: state ${i.state}, last event shows ${lastState.get(i.id) ?? 'none'}`);
  const fillEvents = new Set(events.filter((e) => e.kind === 'fill.executed').map((e) => e.fill_id));
  for (const f of fills) if (!fillEvents.has(f.id)) lost.push(`fill ${f.id}: no fill.executed event`);

  // Webhooks: every event delivered, once per event id after deduplication.
  const deliveries = await q<{ event_id: string; status: string }>(
    `select event_id, status from webhook_deliveries where endpoint_id = $1`,
    [input.webhook.endpointId],
  );
  for (const d of deliveries) {
    if (d.status !== 'delivered') stuck.push(`webhook delivery of ${d.event_id} is ${d.status}`);
    else if (!input.webhook.received.has(d.event_id)) lost.push(`webhook ${d.event_id}: delivered, never received`);
  }
  const recorded = new Set(deliveries.map((d) => d.event_id));
  for (const e of events)
    if (!recorded.has(`${e.account_id}:${e.seq}`)) lost.push(`event ${e.account_id}:${e.seq}: no webhook delivery`);

  // Temporal: open workflows match working orders and live brackets.
  // The visibility store's list, each disagreement confirmed with the workflow's own status (the list may lag).
  const running = await runningWorkflows(input.temporal);
  const open = new Set(running);
  const statusOf = async (workflowId: string) =>
    (
      await input.temporal.workflow
        .getHandle(workflowId)
        .describe()
        .catch(() => null)
    )?.status.name ?? 'NOT_FOUND';
  for (const i of intents) {
    const id = intentWorkflowId(i.id);
    if (working(i) === open.has(id) || (notRun.has(i.id) && !open.has(id))) continue;
    const status = await statusOf(id);
    if (working(i) !== (status === 'RUNNING'))
      stuck.push(`intent ${i.id} is ${i.state}/${i.order_status ?? '-'}, its workflow ${status}`);
  }
  for (const b of log.brackets) {
    const view = await input.call('GET', `/api/v1/oms/brackets/${b.bracketId}`, tokenOf(input.accounts, b.accountId));
    const live = ['staged', 'armed'].includes(view.body?.state);
    if (live === open.has(bracketWorkflowId(b.bracketId))) continue;
    const status = await statusOf(bracketWorkflowId(b.bracketId));
    if (live !== (status === 'RUNNING'))
      stuck.push(`bracket ${b.bracketId} is ${view.body?.state ?? view.status}, its workflow ${status}`);
  }
  for (const id of running)
    if (id.startsWith('webhook-') || id.startsWith('batch-')) stuck.push(`workflow ${id} still runs`);

  const kinds: Record<string, number> = {};
  for (const id of running) {
    const kind = id.split('-')[0];
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  return {
    intents: intents.length,
    batches: log.batches.length,
    fills: fills.length,
    events: events.length,
    lost,
    duplicated,
    stuck,
    webhookRedeliveries: [...input.webhook.received.values()].reduce((s, n) => s + n - 1, 0),
    running: kinds,
  };
}

/** The bearer of the run's account `accountId`. */
const tokenOf = (accounts: ChaosAccount[], accountId: string) => accounts.find((a) => a.accountId === accountId)!.token;
