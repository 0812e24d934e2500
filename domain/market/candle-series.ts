/**
 * One continuous candle series per listed symbol (docs/api.md §2.9), the pure part: recorded history
 * placed on the replay's clock and rebased to meet the first replayed mark, the current mark folded
 * into the newest bar by the live-bar rule, and the bars of a prediction symbol's replayed marks.
 * Times are Unix ms; prices Decimals (USD, or USD per share 0–1 for prediction symbols); volume
 * contracts. No I/O, no clock: the caller passes every time.
 */
import { Decimal } from '../decimal.js';
import { DAY_MS, predictionDay } from './prediction-replay.js';

/** `source` of the bars the live feed aggregates from the replayed marks (modules/market/feeds/live-candles.ts). */
export const LIVE_CANDLE_SOURCE = 'live:replay';

/** One OHLCV bar: opens at `openTime` (Unix ms) and lasts one interval. */
export interface PriceBar {
  openTime: number;
  open: Decimal;
  high: Decimal;
  low: Decimal;
  close: Decimal;
  volume: Decimal;
}

/**
 * How recorded bars are moved onto the replay's clock: every open time plus `shiftMs`, every price
 * × `seamPrice` ÷ `recordedClose`, rounded half-even to `decimals` places; volume as recorded.
 * The newest recorded bar then closes at exactly `seamPrice`, the open of the bar after it.
 */
export interface Rebase {
  /** Added to each recorded open time, ms (a whole number of intervals). */
  shiftMs: number;
  /** Close of the newest recorded bar, as recorded. */
  recordedClose: Decimal;
  /** The price the history meets: the open of the first replayed bar. */
  seamPrice: Decimal;
  /** Decimal places of the rebased prices. */
  decimals: number;
}

/**
 * The rebase that ends the recorded history (its newest bar opening at `recorded.openTime`, closing at
 * `recorded.close`) in the bar right before the one opening at `seam.openTime` with `seam.price`.
 * Rebased prices keep one decimal place more than the symbol's `tickSize` (and at least the seam
 * price's own places, so the history closes at the seam price exactly).
 */
export function rebaseOnto(
  recorded: { openTime: number; close: Decimal },
  seam: { openTime: number; price: Decimal },
  intervalMs: number,
  tickSize: string,
): Rebase {
  return {
    shiftMs: seam.openTime - intervalMs - recorded.openTime,
    recordedClose: recorded.close,
    seamPrice: seam.price,
    decimals: Math.max(new Decimal(tickSize).decimalPlaces() + 1, seam.price.decimalPlaces()),
  };
}

/** A recorded bar moved by {@link Rebase} `r`. Rounding is monotonic, so low ≤ open, close ≤ high still holds. */
export function rebaseBar(bar: PriceBar, r: Rebase): PriceBar {
  const move = (p: Decimal) =>
    p.times(r.seamPrice).div(r.recordedClose).toDecimalPlaces(r.decimals, Decimal.ROUND_HALF_EVEN);
  return {
    openTime: bar.openTime + r.shiftMs,
    open: move(bar.open),
    high: move(bar.high),
    low: move(bar.low),
    close: move(bar.close),
    volume: bar.volume,
  };
}

/**
 * The live-bar rule applied to the current mark (`price` at wall time `ts`): the bar of the interval
 * the mark falls in, given the series' newest bar `newest`. The same bar: it closes at the mark, its
 * high and low widened to it. A later interval: a new bar opening (and closing) at the mark, volume 0.
 * undefined when the mark is older than `newest` (the bars already hold newer marks).
 */
export function foldMark(
  newest: PriceBar | undefined,
  mark: { price: Decimal; ts: number },
  intervalMs: number,
): PriceBar | undefined {
  const openTime = Math.floor(mark.ts / intervalMs) * intervalMs;
  if (newest && openTime < newest.openTime) return undefined;
  if (newest && openTime === newest.openTime)
    return {
      ...newest,
      high: Decimal.max(newest.high, mark.price),
      low: Decimal.min(newest.low, mark.price),
      close: mark.price,
    };
  const p = mark.price;
  return { openTime, open: p, high: p, low: p, close: p, volume: new Decimal(0) };
}

/**
 * Bars of a prediction symbol's replayed marks (domain/market/prediction-replay.ts: `marks[k mod n]`
 * during wall-clock step k of {@link DAY_MS}): the `count` bars of `intervalMs` ending with the one
 * opening at `lastOpen`, oldest first. Each bar covers the steps inside it up to the one holding
 * `nowMs` (the bar holding `nowMs` is still forming); volume is 0 (the recording has no volume).
 * Bars opening after `nowMs` are not made.
 */
export function replayedBars(
  marks: readonly Decimal[],
  intervalMs: number,
  lastOpen: number,
  count: number,
  nowMs: number,
): PriceBar[] {
  const n = marks.length;
  const [top, bottom] = [Decimal.max(...marks), Decimal.min(...marks)];
  const at = (step: number) => marks[predictionDay(step * DAY_MS, n)];
  const nowStep = Math.floor(nowMs / DAY_MS);
  const bars: PriceBar[] = [];
  for (let openTime = lastOpen - (count - 1) * intervalMs; openTime <= lastOpen; openTime += intervalMs) {
    if (openTime > nowMs) break;
    const first = Math.floor(openTime / DAY_MS);
    const last = Math.min(Math.floor((openTime + intervalMs - 1) / DAY_MS), nowStep);
    let [high, low] = [at(first), at(first)];
    if (last - first + 1 >= n) [high, low] = [top, bottom];
    else
      for (let k = first + 1; k <= last; k++) {
        high = Decimal.max(high, at(k));
        low = Decimal.min(low, at(k));
      }
    bars.push({ openTime, open: at(first), high, low, close: at(last), volume: new Decimal(0) });
  }
  return bars;
}
