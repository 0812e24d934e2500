/**
 * The offline mark source of prediction-market symbols (Polymarket `*.PM` and Kalshi `*.KX`): each
 * symbol replays the recorded daily CLOB prices of the Polymarket outcome token in its
 * `sourceCoin` (data/recorded/polymarket_election_top20, loaded by infra/recorded-polymarket.ts).
 *
 * Clock (domain/market/prediction-replay.ts): one recorded day per `DAY_MS` (10 s) of wall clock,
 * looping. The day shown at wall time `t` (epoch ms) is `floor(t / 10 000) mod <number of recorded
 * days>` — a pure function of the wall time, so every process shows the same mark at the same
 * instant, and the mark steps (no interpolation) every 10 s.
 *
 * Tick: the mark is the recorded price clamped to [tick, 1 − tick] (the CLOB's price range; a
 * resolved market's 0 or 1 stays tradeable); the book is one level each side at mark ∓ half a
 * tick, so bid and ask are strictly inside (0, 1), with a nominal {@link BOOK_DEPTH} shares (the
 * recording has no depth). Kalshi's NO = 1 − YES is the Kalshi table's business: this module
 * replays `sourceCoin` as given.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { Decimal } from '../../../domain/decimal.js';
import { predictionDay, predictionMark } from '../../../domain/market/prediction-replay.js';
import type { SymbolSpec } from '../../../domain/market/symbols.js';
import type { MarkTick } from '../../../domain/market/types.js';
import { publishMark } from './marks.js';
import { tokenPrices } from '../../../infra/recorded-polymarket.js';

/** Size of the single book level each side, shares. */
export const BOOK_DEPTH = new Decimal(1000);

/**
 * The tick of a prediction symbol at wall time `nowMs` (epoch ms): venue and symbol of `spec`,
 * `ts = nowMs`, mark = the recorded price of the day shown (clamped to [tick, 1 − tick]), bid/ask
 * = mark ∓ tick/2, one-level book of {@link BOOK_DEPTH} shares. Prices in USD per share (0–1).
 * @throws Error when `spec` is not a prediction symbol or its `sourceCoin` has no recorded prices.
 */
export async function predictionTick(spec: SymbolSpec, nowMs: number): Promise<MarkTick> {
  if (spec.assetClass !== 'prediction') throw new Error(`${spec.symbol} is not a prediction-market symbol`);
  const series = await tokenPrices(spec.sourceCoin);
  if (!series) throw new Error(`no recorded prices for token ${spec.sourceCoin} (${spec.symbol})`);
  return predictionTickAt(spec, series[predictionDay(nowMs, series.length)], nowMs);
}

/**
 * A prediction tick of `spec` at `price` (USD per share, 0–1), stamped `nowMs`: mark = `price`
 * clamped to [tick, 1 − tick], bid/ask = mark ∓ tick/2, a one-level book of {@link BOOK_DEPTH}
 * shares each side. Used by {@link predictionTick}, and by tests and benchmarks that pin a mark.
 */
export function predictionTickAt(spec: SymbolSpec, price: Decimal | string, nowMs: number): MarkTick {
  const half = new Decimal(spec.tickSize).div(2);
  const mark = predictionMark(spec.tickSize, price);
  const bid = mark.sub(half);
  const ask = mark.add(half);
  return {
    venue: spec.venue,
    symbol: spec.symbol,
    ts: nowMs,
    mark,
    bid,
    ask,
    book: { bids: [{ price: bid, size: BOOK_DEPTH }], asks: [{ price: ask, size: BOOK_DEPTH }] },
  };
}

/**
 * Publishes {@link predictionTick} of every symbol to the mark store (`publishMark`) at once and
 * then every `intervalMs` (default 1000). A symbol whose previous publish is still running is
 * skipped for that round; errors go to `onError` and never stop the feed.
 * `stop()` stops the timer and waits for publishes in flight.
 */
export function startPredictionMarkFeed(opts: {
  orm: MikroORM;
  symbols: SymbolSpec[];
  intervalMs?: number;
  onError: (err: unknown) => void;
}): { stop(): Promise<void> } {
  const intervalMs = opts.intervalMs ?? 1000;
  if (!(Number.isFinite(intervalMs) && intervalMs > 0))
    throw new Error(`intervalMs must be a positive number of ms, got ${opts.intervalMs}`);
  const inFlight = new Map<string, Promise<void>>();
  let stopped = false;
  const round = () => {
    for (const spec of opts.symbols) {
      if (stopped || inFlight.has(spec.symbol)) continue;
      const p = (async () => {
        try {
          await publishMark(opts.orm, await predictionTick(spec, Date.now()));
        } catch (err) {
          try {
            opts.onError(err);
          } catch {
            // a failing reporter must not stop the feed
          }
        }
      })().finally(() => inFlight.delete(spec.symbol));
      inFlight.set(spec.symbol, p);
    }
  };
  round();
  const timer = setInterval(round, intervalMs);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}
