/**
 * `POST /oms/modify` (docs/api.md §4.4): cancel-replace a working order with new numbers through its
 * intent's `modify` Update; the replacement is a new intent with a new id.
 */
import { ApiError } from '../../../domain/errors.js';
import { Decimal, dec, fmt } from '../../../domain/decimal.js';
import type { ComposeIntent } from '../../../domain/oms/intent.js';
import { newIntent } from '../../../domain/oms/new-intent.js';
import { OrderIntent } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import { intentWorkflowId, modifyUpdate } from '../workflows/intent.definitions.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { viaWorkflow } from '../../../api/temporal-errors.js';
import { checkInstrument } from './compose.js';
import { newIntentId } from './write-id.js';

/** What may change: the size (contracts) and prices (USD); absent fields keep the order's. */
export interface OrderChange {
  intentId: string;
  newQty?: number;
  newPrice?: number;
  newTriggerPrice?: number;
  newStopLimitPrice?: number;
}

/**
 * Replaces the caller's working order: the unfilled size unless `newQty`, the same prices unless
 * given; checked like a compose (lot, tick). Answers the replaced id and the replacement.
 * @throws ApiError `404 intent_not_found`, `409 agent_not_dispatchable` (never signed), `409 invalid_state`,
 *   the instrument codes of compose, `503 service_unavailable`.
 */
export async function modifyIntent(deps: ApiDeps, caller: Caller, change: OrderChange) {
  const old = await scoped(deps.orm, caller.tenantId).findOne(OrderIntent, {
    id: change.intentId,
    credentialId: caller.credentialId,
  });
  if (!old) throw new ApiError('intent_not_found', `no intent ${change.intentId} for this credential`);
  if (old.state === 'intent_pending')
    throw new ApiError(
      'agent_not_dispatchable',
      `intent ${old.id} was never signed, so it was never dispatched; sign it or compose anew`,
    );
  if (old.orderStatus !== 'open')
    throw new ApiError('invalid_state', `intent ${old.id} is ${old.state}: no working order to modify`);
  const num = (v: number | undefined, was: string | null | undefined) =>
    v === undefined ? (was ?? undefined) : fmt(dec(v));
  const next = {
    venue: old.venue as ComposeIntent['venue'],
    symbol: old.symbol,
    qty: num(change.newQty, fmt(new Decimal(old.qty).minus(old.filledQty)))!,
    price: num(change.newPrice, old.price),
    triggerPrice: num(change.newTriggerPrice, old.triggerPrice),
    stopLimitPrice: num(change.newStopLimitPrice, old.stopLimitPrice),
  };
  const spec = checkInstrument(next);
  const replacement = newIntent({
    intentId: newIntentId(),
    tenantId: caller.tenantId,
    accountId: old.accountId,
    credentialId: caller.credentialId,
    clientOrderId: old.clientOrderId,
    venue: next.venue,
    symbol: spec.symbol,
    side: old.side as ComposeIntent['side'],
    type: old.type,
    qty: next.qty,
    price: next.price,
    triggerPrice: next.triggerPrice,
    stopLimitPrice: next.stopLimitPrice,
    reduceOnly: old.reduceOnly,
    timeInForce: old.timeInForce,
    leverage: old.leverage,
  });
  const result = await viaWorkflow(
    () =>
      deps.temporal.workflow.getHandle(intentWorkflowId(old.id)).executeUpdate(modifyUpdate, { args: [replacement] }),
    new ApiError('invalid_state', `intent ${old.id} is no longer working: nothing to modify`),
  );
  return {
    ok: true as const,
    replacedIntentId: result.replacedIntentId,
    intentId: result.intent.intentId,
    intent: result.intent,
  };
}
