/**
 * Brackets (docs/api.md §3.3, §4.4): a take-profit / stop-loss pair on a parent intent (`staged: true`
 * until it fills) or on an open position. Each bracket is the workflow `bracket-<bracketId>`; attach
 * uses the parent's intent id as bracket id, so a second attach to one parent is refused.
 */
import { randomBytes } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { ApiError } from '../../../domain/errors.js';
import { Decimal, dec, fmt } from '../../../domain/decimal.js';
import { findSymbol } from '../../../domain/market/symbols.js';
import { OrderIntent, Position } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import { searchAttributes } from '../../../workflows/shared.definitions.js';
import {
  attachUpdate,
  bracketQuery,
  bracketWorkflowId,
  moveBracketUpdate,
  type BracketInput,
  type BracketView,
} from '../workflows/bracket.definitions.js';
import { bracketWorkflow } from '../workflows/bracket.js';
import { ownedAccount, targetAccount } from '../../../api/auth/ownership.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { viaWorkflow } from '../../../api/temporal-errors.js';
import { updateWithStart } from './update-with-start.js';

/** Trigger prices of the legs (USD numbers as the body carries them). */
interface LegPrices {
  tpPrice?: number;
  slPrice?: number;
}

/**
 * Trigger prices as decimal strings, on the symbol's tick, on the profitable (tp) and losing (sl)
 * side of `reference` for a position opened by `side`.
 * @throws ApiError 400 validation_failed with field issues (`price_tick`, `bracket_side`).
 */
function legPrices(
  venue: string,
  symbol: string,
  side: 'buy' | 'sell',
  reference: Decimal | null,
  { tpPrice: tp, slPrice: sl }: LegPrices,
) {
  const spec = findSymbol(venue, symbol)!;
  const issues: { path: string; message: string; code: string }[] = [];
  const check = (field: 'tpPrice' | 'slPrice', v: number | undefined) => {
    if (v === undefined) return null;
    const d = dec(v);
    if (!d.mod(spec.tickSize).isZero())
      issues.push({
        path: `body.${field}`,
        message: `${symbol} prices are multiples of ${spec.tickSize}`,
        code: 'price_tick',
      });
    const profitUp = side === 'buy';
    const wrongSide =
      reference &&
      (field === 'tpPrice'
        ? profitUp
          ? d.lte(reference)
          : d.gte(reference)
        : profitUp
          ? d.gte(reference)
          : d.lte(reference));
    if (wrongSide) {
      const where = (field === 'tpPrice') === profitUp ? 'above' : 'below';
      issues.push({
        path: `body.${field}`,
        message: `${field} must be ${where} ${fmt(reference)} for a ${side === 'buy' ? 'long' : 'short'}`,
        code: 'bracket_side',
      });
    }
    return fmt(d);
  };
  const out = { tpPrice: check('tpPrice', tp), slPrice: check('slPrice', sl) };
  if (issues.length) throw new ApiError('validation_failed', issues);
  return out;
}

/**
 * Starts `bracket-<bracketId>` and answers it.
 * @throws ApiError `409 invalid_state` when one is already attached or it ended, `503 service_unavailable`.
 */
async function start(deps: ApiDeps, input: BracketInput): Promise<BracketView> {
  try {
    return await updateWithStart(
      deps,
      attachUpdate,
      bracketWorkflow,
      {
        workflowId: bracketWorkflowId(input.bracketId),
        args: [input],
        conflict: 'FAIL',
        searchAttributes: searchAttributes(input),
      },
      new ApiError('invalid_state', `the bracket ${input.bracketId} has ended`),
    );
  } catch (err) {
    if (
      err instanceof WorkflowExecutionAlreadyStartedError ||
      (err as Error)?.name === 'WorkflowExecutionAlreadyStartedError'
    ) {
      throw new ApiError(
        'invalid_state',
        `a bracket is already attached to ${input.bracketId}; move it with brackets/modify`,
      );
    }
    throw err;
  }
}

/**
 * Attaches legs to the caller's intent `parentIntentId`, staged until it fills; prices are checked
 * against the parent's price (or its fill).
 * @throws ApiError `404 intent_not_found`, `409 invalid_state` (rejected, or canceled unfilled), `400 validation_failed`, as {@link start}.
 */
export async function attachBracket(
  deps: ApiDeps,
  caller: Caller,
  body: LegPrices & { parentIntentId: string },
): Promise<BracketView> {
  const parent = await scoped(deps.orm, caller.tenantId).findOne(OrderIntent, {
    id: body.parentIntentId,
    credentialId: caller.credentialId,
  });
  if (!parent) throw new ApiError('intent_not_found', `no intent ${body.parentIntentId} for this credential`);
  if (parent.state === 'rejected' || (parent.state === 'canceled' && new Decimal(parent.filledQty).isZero()))
    throw new ApiError('invalid_state', `intent ${parent.id} is ${parent.state}: nothing to protect`);
  const reference = parent.price ?? parent.stopLimitPrice ?? parent.triggerPrice ?? parent.avgFillPrice;
  const prices = legPrices(
    parent.venue,
    parent.symbol,
    parent.side as 'buy' | 'sell',
    reference ? new Decimal(reference) : null,
    body,
  );
  return start(deps, {
    bracketId: parent.id,
    tenantId: caller.tenantId,
    accountId: parent.accountId,
    credentialId: caller.credentialId,
    venue: parent.venue,
    symbol: parent.symbol,
    parentIntentId: parent.id,
    ...prices,
  });
}

/**
 * Attaches armed legs to the open position in `symbol` (prices checked against its entry price).
 * @throws ApiError `409 invalid_state` without a position, `400 validation_failed`, as targetAccount and {@link start}.
 */
export async function attachToPosition(
  deps: ApiDeps,
  caller: Caller,
  body: LegPrices & { symbol: string; accountId?: string },
): Promise<BracketView> {
  const em = scoped(deps.orm, caller.tenantId);
  const { id: accountId } = await targetAccount(em, caller, body.accountId);
  const position = await em.findOne(Position, { accountId, symbol: body.symbol, qty: { $ne: '0' } });
  if (!position) throw new ApiError('invalid_state', `no open position in ${body.symbol}`);
  const side = new Decimal(position.qty).isPos() ? 'buy' : 'sell';
  const prices = legPrices(position.venue, position.symbol, side, new Decimal(position.avgEntryPrice), body);
  const bracketId = `brk_${randomBytes(10).toString('hex')}`;
  return start(deps, {
    bracketId,
    tenantId: caller.tenantId,
    accountId,
    credentialId: caller.credentialId,
    venue: position.venue,
    symbol: position.symbol,
    parentIntentId: null,
    ...prices,
  });
}

/** The bracket, checked to be the caller's. @throws ApiError `404 not_found`, `403 forbidden`. */
export async function ownedBracket(deps: ApiDeps, caller: Caller, bracketId: string): Promise<BracketView> {
  const query = () => deps.temporal.workflow.getHandle(bracketWorkflowId(bracketId)).query(bracketQuery);
  const view = await viaWorkflow(query, new ApiError('not_found', `no bracket ${bracketId}`)).catch((err) => {
    if (err instanceof ApiError) throw err;
    throw new ApiError('not_found', `no bracket ${bracketId}`);
  });
  await ownedAccount(scoped(deps.orm, caller.tenantId), caller, view.accountId);
  return view;
}

/**
 * Moves the caller's bracket legs (an armed leg is canceled and re-armed at the new trigger).
 * @throws ApiError as {@link ownedBracket}, `409 invalid_state` when closed, canceled or ended, `503 service_unavailable`.
 */
export async function moveBracket(
  deps: ApiDeps,
  caller: Caller,
  body: LegPrices & { bracketId: string },
): Promise<BracketView> {
  const view = await ownedBracket(deps, caller, body.bracketId);
  if (view.state === 'closed' || view.state === 'canceled')
    throw new ApiError('invalid_state', `bracket ${view.bracketId} is ${view.state}`);
  const move = Object.fromEntries(
    Object.entries({ tpPrice: body.tpPrice, slPrice: body.slPrice })
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, fmt(dec(v!))]),
  );
  return viaWorkflow(
    () =>
      deps.temporal.workflow
        .getHandle(bracketWorkflowId(view.bracketId))
        .executeUpdate(moveBracketUpdate, { args: [move] }),
    new ApiError('invalid_state', `bracket ${view.bracketId} has ended`),
  );
}
