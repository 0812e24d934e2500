/**
 * Decimal arithmetic for money, sizes and prices (decimal.js, 40 significant digits).
 * A JS float never touches these values: parse from strings, format back to strings.
 */
import { Decimal as DecimalJs } from 'decimal.js';

/** The project's Decimal constructor: 40 significant digits, half-even rounding. */
export const Decimal = DecimalJs.clone({ precision: 40, rounding: DecimalJs.ROUND_HALF_EVEN });
export type Decimal = InstanceType<typeof Decimal>;

/** A plain non-negative decimal string as the API's request fields take it: digits, optionally a fraction (`"2500.50"`). */
export const PLAIN_DECIMAL = /^\d+(\.\d+)?$/;

/** Whether `v` is a {@link PLAIN_DECIMAL} string, so parsing or comparing it cannot throw. */
export const isPlainDecimal = (v: unknown): v is string => typeof v === 'string' && PLAIN_DECIMAL.test(v);

/** Zero, shared. */
export const ZERO = new Decimal(0);

/**
 * Parse a decimal from a string, a Decimal or (for coerced JSON input) a finite number.
 * Numbers go through their shortest round-trip string (`String(n)`), so `0.1` is exactly `0.1`.
 * @throws Error when the input is not a finite decimal.
 */
export function dec(v: string | number | Decimal): Decimal {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`not a finite number: ${v}`);
    return new Decimal(String(v));
  }
  return new Decimal(v);
}

/** Canonical wire form of a decimal: plain notation, no exponent, no trailing zeros (`"111038.5"`). */
export function fmt(v: Decimal): string {
  return v.toFixed();
}

/** A stored decimal string in canonical wire form ({@link fmt}): `"1.50"` → `"1.5"`; null or undefined → null. */
export function canon(v: string): string;
export function canon(v: string | null | undefined): string | null;
export function canon(v: string | null | undefined): string | null {
  return v == null ? null : fmt(new Decimal(v));
}
