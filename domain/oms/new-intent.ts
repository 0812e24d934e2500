/**
 * The one builder of a new intent record: what the api composes (`POST /oms/intents`, smart routing,
 * modify) and what the OMS derives by itself (bracket legs, chase replacements, flatten and reverse
 * legs) all become an `intent-<intentId>` workflow input of this shape, recorded by the activity
 * `recordIntent` (modules/oms/activities/oms.ts). Pure and deterministic, so workflow code builds bracket legs
 * with it too. Decimals are strings; the field order is fixed (it is the order of the workflow input).
 */
import type { VenueSigning } from './signing.js';

/** A new intent as its workflow receives it (validated; decimals as strings). */
export interface IntentRecord {
  intentId: string;
  tenantId: string;
  accountId: string;
  credentialId: string;
  clientOrderId: string | null;
  venue: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: string;
  qty: string;
  price: string | null;
  triggerPrice: string | null;
  stopLimitPrice: string | null;
  reduceOnly: boolean;
  timeInForce: string;
  leverage: string;
  /** `self`: the credential signs (intent starts `intent_pending`); absent or `platform`: proceeds by itself. */
  signing?: 'platform' | 'self';
  /** Routed venues: how often the workflow reads a resting order back from the venue at first (ms; backs off to 60 s). */
  pollMs?: number;
  /** Set on flatten and reverse legs. */
  batchId?: string;
  batchLeg?: number;
  /** A self-signed intent on a routed venue: what its venue request is signed with (domain/oms/signing.ts). */
  venueSigning?: VenueSigning;
  /**
   * A platform-signed intent on a routed venue: the id of the account's agent there as compose checked it. Its first
   * dispatch takes that agent's signing lane as it starts, so the order's nonce is allocated beside its record;
   * dispatch signs with the agent current then, whatever this says (docs/order-lifecycle.md §1).
   */
  agentId?: string;
}

/** The order of a new intent; an absent client order id or price is `null`. */
export type IntentOrder = Omit<
  IntentRecord,
  | 'clientOrderId'
  | 'price'
  | 'triggerPrice'
  | 'stopLimitPrice'
  | 'signing'
  | 'pollMs'
  | 'batchId'
  | 'batchLeg'
  | 'venueSigning'
  | 'agentId'
> &
  Partial<Pick<IntentRecord, 'clientOrderId' | 'price' | 'triggerPrice' | 'stopLimitPrice'>>;

/** How the intent proceeds: who signs (and with what, on a routed venue), how routed orders are polled, which batch leg it is. */
export type IntentExtras = Pick<
  IntentRecord,
  'signing' | 'pollMs' | 'batchId' | 'batchLeg' | 'venueSigning' | 'agentId'
>;

/** A new intent record: `order` in the record's field order (absent optional fields `null`), then `extras` as given. */
export function newIntent(order: IntentOrder, extras: IntentExtras = {}): IntentRecord {
  return {
    intentId: order.intentId,
    tenantId: order.tenantId,
    accountId: order.accountId,
    credentialId: order.credentialId,
    clientOrderId: order.clientOrderId ?? null,
    venue: order.venue,
    symbol: order.symbol,
    side: order.side,
    type: order.type,
    qty: order.qty,
    price: order.price ?? null,
    triggerPrice: order.triggerPrice ?? null,
    stopLimitPrice: order.stopLimitPrice ?? null,
    reduceOnly: order.reduceOnly,
    timeInForce: order.timeInForce,
    leverage: order.leverage,
    ...extras,
  };
}
