/**
 * What the ccxt conformance tests (test/venues/aster-conformance.test.ts, hyperliquid-ccxt.test.ts) share:
 * the refusal of a call as a trader sees it (ccxt maps the venue's error answer to one of its error
 * classes, with the venue's body in the message), and the skeleton of ccxt's unified market for a linear
 * perpetual, whose venue-specific fields each test states.
 */
import ccxt from 'ccxt';

/** The refusal of a ccxt call: `<ccxt error class>: <message>`. @throws Error when the call succeeds or throws something else. */
export async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (err) {
    if (err instanceof ccxt.BaseError) return `${err.constructor.name}: ${err.message}`;
    throw err;
  }
  throw new Error('expected ccxt to throw');
}

/** ccxt's unified market of an active linear perpetual (a `swap` settled in its quote), with `fields` (ids, fees, precision, limits, info…). */
export const linearSwapMarket = (fields: Record<string, unknown>) => ({
  lowercaseId: undefined,
  type: 'swap',
  spot: false,
  swap: true,
  future: false,
  option: false,
  index: undefined,
  active: true,
  contract: true,
  linear: true,
  inverse: false,
  subType: 'linear',
  contractSize: 1,
  expiry: undefined,
  expiryDatetime: undefined,
  strike: undefined,
  optionType: undefined,
  marginModes: { cross: undefined, isolated: undefined },
  created: undefined,
  ...fields,
});
