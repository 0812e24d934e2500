/**
 * Self-signed intents on `paper` (docs/api.md §3.1): the EIP-712 typed data a credential that holds its
 * own key signs. Every field of the order is in the message, as strings (decimals stay exact; an
 * absent price is the empty string), so a signature covers exactly what will be dispatched.
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
