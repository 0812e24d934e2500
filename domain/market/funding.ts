/**
 * Funding on perpetuals (Hyperliquid convention): paid every hour on open positions,
 * `payment = −(signed size × mark × rate)` USD, so longs pay a positive rate and shorts receive it.
 * Offline, the rate of a wall-clock hour comes from the recorded real Hyperliquid funding rates,
 * cycled: row `(hour index since the Unix epoch) mod (rows)` of the recording. Pure.
 */
import { Decimal } from '../decimal.js';

/** One hour, ms. */
export const HOUR_MS = 3_600_000;

/** One recorded funding rate (a fraction per funding interval, e.g. `0.0000125`), with its recorded time (Unix ms). */
export interface RecordedRate {
  ts: number;
  rate: Decimal;
}

/** The start of the hour holding `ms` (Unix ms). */
export const floorHour = (ms: number): number => Math.floor(ms / HOUR_MS) * HOUR_MS;

/**
 * The recorded rate applied at the funding hour starting at `hourMs` (Unix ms, on the hour).
 * @throws Error when the recording is empty or `hourMs` is not on the hour.
 */
export function rateForHour(recording: readonly RecordedRate[], hourMs: number): RecordedRate {
  if (!recording.length) throw new Error('no recorded funding rates');
  if (hourMs % HOUR_MS !== 0)
    throw new Error(`funding hour must be on the hour, got ${new Date(hourMs).toISOString()}`);
  const n = recording.length;
  return recording[(((hourMs / HOUR_MS) % n) + n) % n];
}

/** The funding payment of a position, USD: negative = the account pays. `qty` signed contracts, `mark` USD. */
export function fundingPaymentUsd(qty: Decimal | string, mark: Decimal | string, rate: Decimal | string): Decimal {
  return new Decimal(qty).times(mark).times(rate).negated();
}
