/**
 * The work `npm run chaos` (scripts/lib/chaos/run.ts) drives through the cluster's api processes while
 * workers die: every account runs one loop that never pauses, each step a row of a weighted table —
 * market orders, limit orders that rest and are cancelled, brackets staged on a resting parent and
 * armed on a position, flatten and reverse batches — on `paper` (internalised accounts) and on the
 * four venue simulators (routed accounts). Every write carries an `Idempotency-Key` and is retried,
 * with the same key, on whichever api answers, until it gets a 2xx or 4xx (docs/api.md §8): a
 * retried compose must never become a second order. What was asked and answered is kept in a
 * {@link WorkLog} for the reconciliation (scripts/lib/chaos/reconcile.ts).
 */
import { randomBytes } from 'node:crypto';
import { Decimal } from '../../../domain/decimal.js';
import { VENUE_SYMBOLS, type SymbolSpec } from '../../../domain/market/symbols.js';
import { ROUTED_VENUES } from '../../../domain/oms/intent.js';

/** One trader account of the run and the bearer its loop uses. */
export interface ChaosAccount {
  accountId: string;
  /** `paper`: internalised (the paper engine fills it); `routed`: agents authorised on the four venue simulators. */
  mode: 'paper' | 'routed';
  token: string;
}

/** What the driver asked for and what it was answered: the reconciliation's account of the client side. */
export interface WorkLog {
  /** Every compose that was answered 201: intent id → its account, venue and the Idempotency-Key it was sent with. */
  intents: Map<string, { accountId: string; venue: string; key: string }>;
  /** Composes never answered 201 or 4xx within the retry budget (the api or Temporal stayed down). */
  unanswered: number;
  /** Why calls went unanswered: `<method> <path>: <last status and body, or error>` → count. */
  unansweredWhy: Record<string, number>;
  /** Batches started (`POST /oms/flatten`, `/oms/reverse`): their plan as the api answered it. */
  batches: { batchId: string; accountId: string; kind: string; legs: { n: number; intentId: string }[] }[];
  /** Brackets attached: id and whether it was staged on a resting parent. */
  brackets: { bracketId: string; accountId: string; staged: boolean }[];
  /** Steps run, by kind. */
  steps: Record<string, number>;
  /** 4xx answers by `error` code (a refused step is legitimate: no position to reverse, a stale mark…). */
  refusals: Record<string, number>;
  /** Attempts that met a connection error or a 5xx and were retried. */
  retries: number;
}

/** A new, empty {@link WorkLog}. */
export const newWorkLog = (): WorkLog => ({
  intents: new Map(),
  unanswered: 0,
  unansweredWhy: {},
  batches: [],
  brackets: [],
  steps: {},
  refusals: {},
  retries: 0,
});

/** An api answer: status (0: none within the retry budget) and the JSON body. */
interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- the api's JSON, read field by field
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)];

/**
 * The HTTP side of the driver: each call goes to the next api base URL in turn; a connection error, a 5xx,
 * a 429 or a `409 idempotency_request_in_flight` is retried (same body, same Idempotency-Key) on the next
 * api after a back-off of 0.25-2 s, for up to `retryMs` (ms). Returns status 0 when the budget ran out.
 */
export function apiClient(urls: string[], tenantSlug: string, log: WorkLog, retryMs = 120_000) {
  let next = 0;
  return async (
    method: string,
    path: string,
    token: string,
    body?: unknown,
    key = body === undefined ? undefined : `chaos-${randomBytes(12).toString('hex')}`,
  ): Promise<Answer> => {
    const deadline = Date.now() + retryMs;
    let last: string;
    for (let attempt = 0; ; attempt++) {
      const url = urls[next++ % urls.length];
      try {
        const res = await fetch(`${url}${path}`, {
          method,
          headers: {
            'x-tenant-slug': tenantSlug,
            authorization: `Bearer ${token}`,
            ...(body !== undefined && { 'content-type': 'application/json' }),
            ...(key && { 'idempotency-key': key }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          // Longer than any answer the api gives: a workflow's 15 s (503) after an Idempotency-Key's 30 s wait (409).
          signal: AbortSignal.timeout(50_000),
        });
        const text = await res.text();
        // 429 and `409 idempotency_request_in_flight` (the first request with the key still runs) mean "retry later".
        const later = res.status === 429 || (res.status === 409 && text.includes('idempotency_request_in_flight'));
        if (res.status < 500 && !later) return { status: res.status, body: text ? JSON.parse(text) : null };
        last = `${res.status} ${text.slice(0, 120)}`;
      } catch (err) {
        last = (err as Error).message; // connection refused or reset, or no answer in 30 s: retried below
      }
      if (Date.now() > deadline) {
        const why = `${method} ${path.replace(/\/(int|brk|acc)_\w+/g, '/{id}')}: ${last}`;
        log.unansweredWhy[why] = (log.unansweredWhy[why] ?? 0) + 1;
        return { status: 0, body: null };
      }
      log.retries++;
      await sleep(Math.min(2_000, 250 * 2 ** Math.min(attempt, 3)));
    }
  };
}

/** The symbol each routed venue's loops trade (ETH on the perp venues, the first listed market on the prediction venues). */
const ROUTED_SYMBOLS: Record<string, SymbolSpec> = Object.fromEntries(
  ROUTED_VENUES.map((v) => [v, VENUE_SYMBOLS[v].find((s) => s.base === 'ETH') ?? VENUE_SYMBOLS[v][0]]),
);

/** Order sizes in contracts (decimal strings) by base: small enough that thousands of fills stay within margin. */
const SIZE: Record<string, string> = { BTC: '0.001', ETH: '0.01', SOL: '0.1' };
const PREDICTION_SIZE = '5';

/** A step of one loop: what it does to `account` through `call`. */
type Step = (ctx: StepContext) => Promise<void>;

/** What a step works with. */
interface StepContext {
  account: ChaosAccount;
  call: ReturnType<typeof apiClient>;
  log: WorkLog;
  /** True once the run is asked to stop: long waits end early. */
  stopping: () => boolean;
}

/** Counts a 4xx by its error code. */
const refused = (log: WorkLog, a: Answer) => {
  const code = a.status === 0 ? 'unanswered' : String(a.body?.error ?? a.status);
  log.refusals[code] = (log.refusals[code] ?? 0) + 1;
};

/** The symbol's mark (decimal), or null when the api has none. */
async function markOf(ctx: StepContext, spec: SymbolSpec): Promise<Decimal | null> {
  const q = await ctx.call('GET', `/api/v1/market/quotes/${spec.venue}/${spec.symbol}`, ctx.account.token);
  return q.status === 200 ? new Decimal(q.body.mark) : null;
}

/** A price far below the mark (half, on the symbol's tick; 0.02 on a prediction market): a buy limit that rests. */
const restingBuyPrice = (spec: SymbolSpec, mark: Decimal) =>
  spec.assetClass === 'prediction' ? '0.02' : mark.div(2).toNearest(spec.tickSize, Decimal.ROUND_DOWN).toFixed();

/** Composes an order; records the intent on 201. Returns the answer. */
async function compose(ctx: StepContext, spec: SymbolSpec, order: Record<string, unknown>): Promise<Answer> {
  const key = `chaos-${randomBytes(12).toString('hex')}`;
  const body = {
    accountId: ctx.account.accountId,
    venue: spec.venue,
    symbol: spec.symbol,
    qty: spec.assetClass === 'prediction' ? PREDICTION_SIZE : SIZE[spec.base],
    clientOrderId: key, // the reconciliation counts intents per client order id: a retry must not make a second
    ...order,
  };
  const a = await ctx.call('POST', '/api/v1/oms/intents', ctx.account.token, body, key);
  if (a.status === 201)
    ctx.log.intents.set(a.body.intentId, { accountId: ctx.account.accountId, venue: spec.venue, key });
  else if (a.status === 0) ctx.log.unanswered++;
  if (a.status !== 201) refused(ctx.log, a);
  return a;
}

/** Polls the intent until `done(intent)` or `ms` pass (or the run stops); the last intent read, or null. */
async function waitIntent(ctx: StepContext, intentId: string, done: (i: IntentRead) => boolean, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const a = await ctx.call('GET', `/api/v1/oms/intents/${intentId}`, ctx.account.token);
    if (a.status === 200 && done(a.body)) return a.body;
    if (Date.now() > deadline || ctx.stopping()) return null;
    await sleep(300);
  }
}
/** The fields of `GET /oms/intents/{id}` the steps wait on. */
interface IntentRead {
  state: string;
  orderStatus: string | null;
}
const terminal = (i: IntentRead) => ['filled', 'canceled', 'rejected'].includes(i.state);
const resting = (i: IntentRead) => terminal(i) || i.orderStatus === 'open';

/** A market order that fills at the mark. */
const market =
  (specs: () => SymbolSpec): Step =>
  async (ctx) => {
    const a = await compose(ctx, specs(), { side: pick(['buy', 'sell']), type: 'market' });
    if (a.status === 201) await waitIntent(ctx, a.body.intentId, terminal);
  };

/** A buy limit at half the mark that rests, then is cancelled by its intent id. */
const restAndCancel =
  (specs: () => SymbolSpec): Step =>
  async (ctx) => {
    const spec = specs();
    const mark = await markOf(ctx, spec);
    if (!mark) return;
    const a = await compose(ctx, spec, { side: 'buy', type: 'limit', price: restingBuyPrice(spec, mark) });
    if (a.status !== 201) return;
    await waitIntent(ctx, a.body.intentId, resting);
    const c = await ctx.call('POST', '/api/v1/oms/cancel', ctx.account.token, { intentId: a.body.intentId });
    if (c.status !== 200) refused(ctx.log, c);
  };

const PAPER = () => pick(VENUE_SYMBOLS.paper);

/** A bracket staged on a resting parent (a buy limit at half the mark), then the parent cancelled. */
const stagedBracket: Step = async (ctx) => {
  const spec = PAPER();
  const mark = await markOf(ctx, spec);
  if (!mark) return;
  const price = restingBuyPrice(spec, mark);
  const parent = await compose(ctx, spec, { side: 'buy', type: 'limit', price });
  if (parent.status !== 201) return;
  await waitIntent(ctx, parent.body.intentId, resting);
  const att = await ctx.call('POST', '/api/v1/oms/brackets/attach', ctx.account.token, {
    parentIntentId: parent.body.intentId,
    tpPrice: Number(mark.times(2).toNearest(spec.tickSize).toFixed()),
    slPrice: Number(new Decimal(price).times('0.9').toNearest(spec.tickSize).toFixed()),
  });
  if (att.status === 200)
    ctx.log.brackets.push({ bracketId: att.body.bracketId, accountId: ctx.account.accountId, staged: true });
  else refused(ctx.log, att);
  const c = await ctx.call('POST', '/api/v1/oms/cancel', ctx.account.token, { intentId: parent.body.intentId });
  if (c.status !== 200) refused(ctx.log, c);
};

/** The account's open positions on paper: symbol and signed size. */
async function paperPositions(ctx: StepContext): Promise<{ symbol: string; qty: Decimal }[]> {
  const a = await ctx.call('GET', `/api/v1/accounts/${ctx.account.accountId}/positions`, ctx.account.token);
  if (a.status !== 200) return [];
  return (a.body.positions as { venue: string; symbol: string; qty: string }[])
    .filter((p) => p.venue === 'paper' && !new Decimal(p.qty).isZero())
    .map((p) => ({ symbol: p.symbol, qty: new Decimal(p.qty) }));
}

/** A bracket armed at once on an open position: a stop and a take-profit far from the mark (they keep working). */
const armedBracket: Step = async (ctx) => {
  const held = await paperPositions(ctx);
  if (!held.length) return market(PAPER)(ctx);
  const { symbol, qty } = pick(held);
  const spec = VENUE_SYMBOLS.paper.find((s) => s.symbol === symbol)!;
  const mark = await markOf(ctx, spec);
  if (!mark) return;
  const [below, above] = [mark.times('0.5'), mark.times('1.5')].map((p) =>
    Number(p.toNearest(spec.tickSize).toFixed()),
  );
  const att = await ctx.call('POST', '/api/v1/oms/brackets/attach-to-position', ctx.account.token, {
    accountId: ctx.account.accountId,
    symbol,
    ...(qty.gt(0) ? { slPrice: below, tpPrice: above } : { slPrice: above, tpPrice: below }),
  });
  if (att.status === 200)
    ctx.log.brackets.push({ bracketId: att.body.bracketId, accountId: ctx.account.accountId, staged: false });
  else refused(ctx.log, att);
};

/** Starts a flatten or reverse batch; records its plan and waits for its last leg. */
async function batch(ctx: StepContext, kind: 'flatten' | 'reverse', body: Record<string, unknown>) {
  const a = await ctx.call('POST', `/api/v1/oms/${kind}`, ctx.account.token, {
    accountId: ctx.account.accountId,
    ...body,
  });
  if (a.status === 0) ctx.log.unanswered++;
  if (a.status !== 200 && a.status !== 201 && a.status !== 202) return refused(ctx.log, a);
  const legs = (a.body.legs as { n: number; intentId: string }[]).map(({ n, intentId }) => ({ n, intentId }));
  ctx.log.batches.push({ batchId: a.body.batchId, accountId: ctx.account.accountId, kind, legs });
  const last = legs.at(-1);
  if (last) await waitIntent(ctx, last.intentId, terminal, 60_000);
}

const flatten: Step = (ctx) => batch(ctx, 'flatten', {});
const reverse: Step = async (ctx) => {
  const held = await paperPositions(ctx);
  if (!held.length) return market(PAPER)(ctx);
  return batch(ctx, 'reverse', { symbol: pick(held).symbol });
};

const ROUTED = () => ROUTED_SYMBOLS[pick(ROUTED_VENUES)];

/** The steps of each kind of account, with their weights (a table, drawn at random per step). */
const STEPS: Record<ChaosAccount['mode'], [name: string, weight: number, step: Step][]> = {
  paper: [
    ['market', 35, market(PAPER)],
    ['rest-and-cancel', 20, restAndCancel(PAPER)],
    ['bracket-staged', 10, stagedBracket],
    ['bracket-armed', 10, armedBracket],
    ['flatten', 10, flatten],
    ['reverse', 15, reverse],
  ],
  routed: [
    ['routed-market', 50, market(ROUTED)],
    ['routed-rest-and-cancel', 50, restAndCancel(ROUTED)],
  ],
};

/** One step drawn from `rows` by weight. */
function draw(rows: (typeof STEPS)['paper']): [string, Step] {
  let r = Math.random() * rows.reduce((s, [, w]) => s + w, 0);
  for (const [name, w, step] of rows) if ((r -= w) < 0) return [name, step];
  const [name, , step] = rows[rows.length - 1];
  return [name, step];
}

/**
 * The steps each kind of account runs first, in order, before its random draws: a paper account opens a position and
 * flattens it, so every run exercises a batch through the faults (a short run draws few steps: 25 in 30 s on a slow
 * machine, where the table alone may draw no batch at all).
 */
const OPENING: Record<ChaosAccount['mode'], [name: string, step: Step][]> = {
  paper: [
    ['market', market(PAPER)],
    ['flatten', flatten],
  ],
  routed: [],
};

/**
 * Runs one loop per account until `stopping()`; each loop runs its {@link OPENING} steps, then steps drawn from the
 * table, one after another without pause. A step that throws is counted under `refusals.thrown:<message>` and the loop
 * goes on.
 */
export async function drive(
  accounts: ChaosAccount[],
  call: ReturnType<typeof apiClient>,
  log: WorkLog,
  stopping: () => boolean,
): Promise<void> {
  await Promise.all(
    accounts.map(async (account) => {
      const opening = [...OPENING[account.mode]];
      while (!stopping()) {
        const [name, step] = opening.shift() ?? draw(STEPS[account.mode]);
        log.steps[name] = (log.steps[name] ?? 0) + 1;
        await step({ account, call, log, stopping }).catch((err: Error) => {
          const code = `thrown:${err.message.slice(0, 60)}`;
          log.refusals[code] = (log.refusals[code] ?? 0) + 1;
        });
      }
    }),
  );
}
