/**
 * Self-signed intents (docs/api.md §3.1): the EIP-712 signing request of an intent whose credential
 * holds its own key — on a routed venue the venue's own typed data of the exact order request, built
 * from the intent and its {@link VenueSigning}; otherwise the platform's paper typed data — and the
 * venue request of an intent. Pure (no I/O): compose answers the signing request, the signature check
 * verifies against it, and dispatch sends the same request with the signature.
 */
import { canon, Decimal, fmt } from '../domain/decimal.js';
import { isRouted } from '../domain/oms/intent.js';
import { paperSigningRequest, type SignableIntent, type VenueSigning } from '../domain/oms/signing.js';
import { ADAPTERS } from './registry.js';
import type { SelfSignedAuth, SelfSignedOrders, VenueOrderRequest } from './types.js';

/** The fields of an intent its venue request is built from (decimal strings; null or undefined = absent). */
type OrderFields = Pick<
  SignableIntent,
  | 'intentId'
  | 'venue'
  | 'symbol'
  | 'side'
  | 'type'
  | 'qty'
  | 'price'
  | 'triggerPrice'
  | 'stopLimitPrice'
  | 'reduceOnly'
  | 'timeInForce'
  | 'leverage'
>;

/**
 * The venue request of an intent: its fields as canonical decimal strings, `clientOrderId` (the
 * adapter's, from the intent id) and `markPrice` (USD; the reference of a market order's protective price).
 */
export function venueOrderRequest(intent: OrderFields, clientOrderId: string, markPrice: string): VenueOrderRequest {
  return {
    clientOrderId,
    symbol: intent.symbol,
    side: intent.side as VenueOrderRequest['side'],
    type: intent.type as VenueOrderRequest['type'],
    qty: canon(intent.qty),
    price: canon(intent.price),
    triggerPrice: canon(intent.triggerPrice),
    stopLimitPrice: canon(intent.stopLimitPrice),
    reduceOnly: intent.reduceOnly,
    timeInForce: intent.timeInForce as VenueOrderRequest['timeInForce'],
    markPrice,
    leverage: fmt(new Decimal(intent.leverage)),
  };
}

/**
 * A self-signed routed intent as its venue signs it: the venue's {@link SelfSignedOrders}, the order
 * request (priced against the mark at compose) and who signs it under which nonce.
 * @throws Error when the venue is not routed or takes no self-signed order (compose refuses those).
 */
export function selfSignedOrder(
  intent: OrderFields,
  signing: VenueSigning,
): { self: SelfSignedOrders; order: VenueOrderRequest; auth: SelfSignedAuth } {
  const adapter = isRouted(intent.venue) ? ADAPTERS[intent.venue] : undefined;
  if (!adapter?.selfSigned) throw new Error(`${intent.venue} takes no self-signed order`);
  return {
    self: adapter.selfSigned,
    order: venueOrderRequest(intent, adapter.clientOrderId(intent.intentId), signing.markPrice),
    auth: { owner: signing.owner, signer: signing.signer, nonce: BigInt(signing.nonce) },
  };
}

/**
 * The signing request of a self-signed intent, `{ kind: 'eip712', typedData }`: the venue's typed data
 * when the intent carries a {@link VenueSigning} (a routed venue), else the paper typed data.
 * `network` is the routed venues' signing network (config `VENUE_NETWORK`).
 */
export function signingRequestOf(
  intent: SignableIntent & { venueSigning?: VenueSigning | null },
  network: 'mainnet' | 'testnet',
) {
  if (!intent.venueSigning) return paperSigningRequest(intent);
  const { self, order, auth } = selfSignedOrder(intent, intent.venueSigning);
  return { kind: 'eip712' as const, typedData: self.typedData(order, auth, network) };
}
