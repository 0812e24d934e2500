/**
 * Self-signed intents (docs/api.md §3.1): the EIP-712 typed data a credential that holds its own key
 * signs. On `paper` (and for flatten and reverse legs) every field of the order is in the message, as
 * strings (decimals stay exact; an absent price is the empty string), so a signature covers exactly
 * what will be dispatched. On a routed venue the signer signs the venue's own request instead
 * ({@link VenueSigning}; venues/self-signed.ts builds its typed data).
 */

/** EIP-712 domain of paper intents (no chain: the paper engine is off-chain). */
export const PAPER_INTENT_DOMAIN = { name: 'Multivenue Paper Intent', version: '1' } as const;

/** EIP-712 types of a paper intent. */
export const PAPER_INTENT_TYPES = {
  OrderIntent: [
    { name: 'intentId', type: 'string' },
    { name: 'accountId', type: 'string' },
    { name: 'venue', type: 'string' },
    { name: 'symbol', type: 'string' },
    { name: 'side', type: 'string' },
    { name: 'orderType', type: 'string' },
    { name: 'qty', type: 'string' },
    { name: 'price', type: 'string' },
    { name: 'triggerPrice', type: 'string' },
    { name: 'stopLimitPrice', type: 'string' },
    { name: 'reduceOnly', type: 'bool' },
    { name: 'timeInForce', type: 'string' },
    { name: 'leverage', type: 'string' },
  ],
} as const;

/** The fields of an intent the signature covers (decimal strings, null or undefined = absent). */
export interface SignableIntent {
  intentId: string;
  accountId: string;
  venue: string;
  symbol: string;
  side: string;
  type: string;
  qty: string;
  price?: string | null;
  triggerPrice?: string | null;
  stopLimitPrice?: string | null;
  reduceOnly: boolean;
  timeInForce: string;
  leverage: string;
}

/** The signing request of a composed self-signed intent: `{ kind: 'eip712', typedData }`. */
export function paperSigningRequest(i: SignableIntent) {
  return {
    kind: 'eip712' as const,
    typedData: {
      domain: PAPER_INTENT_DOMAIN,
      types: PAPER_INTENT_TYPES,
      primaryType: 'OrderIntent' as const,
      message: {
        intentId: i.intentId,
        accountId: i.accountId,
        venue: i.venue,
        symbol: i.symbol,
        side: i.side,
        orderType: i.type,
        qty: i.qty,
        price: i.price ?? '',
        triggerPrice: i.triggerPrice ?? '',
        stopLimitPrice: i.stopLimitPrice ?? '',
        reduceOnly: i.reduceOnly,
        timeInForce: i.timeInForce,
        leverage: i.leverage,
      },
    },
  };
}

/**
 * What a self-signed intent on a routed venue is signed with, fixed when it is composed (docs/api.md
 * §3.1) and kept on the intent: the owner's account on the venue (`0x` address), the credential's
 * signer address, the nonce allocated for it (decimal, the venue's unit: Hyperliquid ms, Aster µs),
 * the mark at compose (USD; a market order's protective price derives from it), and, once
 * `sign-result` accepted it, the signature (`0x` + 130 hex) the order is sent with.
 */
export interface VenueSigning {
  owner: string;
  signer: string;
  nonce: string;
  markPrice: string;
  signature?: string;
}

/**
 * How `sign-result` answers an intent that was not dispatched (docs/api.md §3.1): `error` the stable code
 * of its reject reason (`insufficient_margin`, `no_mark`, `venue_rejected`, an agent code, …) and
 * `detail` the text after it (a venue refusal's own words), else a sentence naming the intent.
 * `'venue_rejected: Order has invalid price'` → `{ error: 'venue_rejected', detail: 'Order has invalid price' }`.
 */
export function signRefusal(intentId: string, reason: string): { error: string; detail: string } {
  const at = reason.indexOf(': ');
  return at < 0
    ? { error: reason, detail: `intent ${intentId} was not dispatched (${reason})` }
    : { error: reason.slice(0, at), detail: reason.slice(at + 2) };
}
