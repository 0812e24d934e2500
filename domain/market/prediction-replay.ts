/**
 * The replay clock of prediction-market symbols (Polymarket `*.PM`, Kalshi `*.KX`), pure: one recorded
 * daily price per {@link DAY_MS} of wall clock, looping over the recording, each shown clamped to the
 * CLOB's price range. The worker's mark feed (modules/market/feeds/prediction-marks.ts) publishes these
 * marks; the api charts them (modules/market/queries/candles.ts).
 */
import { Decimal } from '../decimal.js';

/** Wall-clock milliseconds per recorded day. */
export const DAY_MS = 10_000;

/**
 * Index of the recorded day shown at wall time `nowMs` (Unix ms) in a recording of `days` days:
 * `floor(nowMs / DAY_MS) mod days` (non-negative for any `nowMs`).
 */
export function predictionDay(nowMs: number, days: number): number {
  return ((Math.floor(nowMs / DAY_MS) % days) + days) % days;
}

/**
 * The mark shown for a recorded price (USD per share, 0–1): clamped to [tick, 1 − tick], so a resolved
 * market's 0 or 1 stays tradeable. `tickSize` is the symbol's price increment (a decimal string).
 */
export function predictionMark(tickSize: string, price: Decimal | string): Decimal {
  const tick = new Decimal(tickSize);
  return Decimal.min(Decimal.max(new Decimal(price), tick), new Decimal(1).sub(tick));
}
