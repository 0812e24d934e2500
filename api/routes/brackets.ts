/**
 * `/api/v1/oms/brackets/*` (docs/api.md §3.3, §4.4): attach a take-profit / stop-loss pair to a parent
 * intent (`staged: true` until it fills) or to an open position, move its legs, read it.
 * Each bracket is the workflow `bracket-<bracketId>`; attach uses the parent's intent id as bracket id.
 */
import Router from '@koa/router';
import { randomBytes } from 'node:crypto';
import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { ApiError } from '../../domain/errors.js';
import { Decimal, dec, fmt } from '../../domain/decimal.js';
import { findSymbol } from '../../domain/market/symbols.js';
import { OrderIntent, Position } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { searchAttributes, attachUpdate, bracketQuery, bracketWorkflowId, moveBracketUpdate, type BracketInput, type BracketView } from '../../workflows/definitions.js';
import { callerOf, gate } from '../middleware/auth.js';
import { omsWrite } from '../middleware/oms-write.js';
import { viaWorkflow } from '../temporal-errors.js';
import type { ApiDeps, ApiState, Caller } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { ownedAccount, targetAccount } from './accounts.js';
import { attachBracketBody, attachToPositionBody, bracketParams, bracketView, modifyBracketBody } from './oms.schemas.js';

/**
 * Trigger prices as decimal strings, on the symbol's tick, on the profitable (tp) and losing (sl)
 * side of `reference` for a position opened by `side`.
 * @throws ApiError 400 validation_failed with field issues.
 */
function legPrices(venue: string, symbol: string, side: 'buy' | 'sell', reference: Decimal | null, tp?: number, sl?: number) {
  const spec = findSymbol(venue, symbol)!;
  const issues: { path: string; message: string; code: string }[] = [];
  const check = (field: 'tpPrice' | 'slPrice', v: number | undefined) => {
    if (v === undefined) return null;
    const d = dec(v);
    if (!d.mod(spec.tickSize).isZero()) issues.push({ path: `body.${field}`, message: `${symbol} prices are multiples of ${spec.tickSize}`, code: 'price_tick' });
    const profitUp = side === 'buy';
    const wrongSide = reference && (field === 'tpPrice' ? (profitUp ? d.lte(reference) : d.gte(reference)) : profitUp ? d.gte(reference) : d.lte(reference));
    if (wrongSide) issues.push({ path: `body.${field}`, message: `${field} must be ${(field === 'tpPrice') === profitUp ? 'above' : 'below'} ${fmt(reference!)} for a ${side === 'buy' ? 'long' : 'short'}`, code: 'bracket_side' });
    return fmt(d);
  };
  const out = { tpPrice: check('tpPrice', tp), slPrice: check('slPrice', sl) };
  if (issues.length) throw new ApiError('validation_failed', issues);
  return out;
}

export function bracketRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/oms/brackets' });
  const tags = ['oms'];

  async function start(caller: Caller, input: BracketInput): Promise<BracketView> {
    try {
      return await viaWorkflow(() => deps.temporal.workflow.executeUpdateWithStart(attachUpdate, {
        startWorkflowOperation: new WithStartWorkflowOperation('bracketWorkflow', {
          workflowId: bracketWorkflowId(input.bracketId),
          taskQueue: deps.config.temporal.taskQueue,
          args: [input],
          workflowIdConflictPolicy: 'FAIL',
          typedSearchAttributes: searchAttributes(input),
        }),
      }), new ApiError('invalid_state', `the bracket ${input.bracketId} has ended`));
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError || (err as Error)?.name === 'WorkflowExecutionAlreadyStartedError') {
        throw new ApiError('invalid_state', `a bracket is already attached to ${input.bracketId}; move it with brackets/modify`);
      }
      throw err;
    }
  }

  /** The bracket, checked to be the caller's. @throws 404 not_found, 403 forbidden. */
  async function ownedBracket(caller: Caller, bracketId: string): Promise<BracketView> {
    const view = await viaWorkflow(() => deps.temporal.workflow.getHandle(bracketWorkflowId(bracketId)).query(bracketQuery), new ApiError('not_found', `no bracket ${bracketId}`)).catch((err) => {
      if (err instanceof ApiError) throw err;
      throw new ApiError('not_found', `no bracket ${bracketId}`);
    });
    await ownedAccount(scoped(deps.orm, caller.tenantId), caller, view.accountId);
    return view;
  }

  endpoint(
    router,
    openapi,
    { method: 'post', path: '/attach', summary: 'Attach take-profit / stop-loss legs to a parent intent; staged until it fills', tags, ...omsWrite(deps.orm, 'brackets/attach'), schemas: { body: attachBracketBody }, responses: { '200': { description: 'The bracket (`staged: true` while the parent is unfilled)', schema: bracketView } } },
    async (ctx, { body }) => {
      const caller = callerOf(ctx);
      const parent = await scoped(deps.orm, caller.tenantId).findOne(OrderIntent, { id: body.parentIntentId, credentialId: caller.credentialId });
      if (!parent) throw new ApiError('intent_not_found', `no intent ${body.parentIntentId} for this credential`);
      if (parent.state === 'rejected' || (parent.state === 'canceled' && new Decimal(parent.filledQty).isZero())) throw new ApiError('invalid_state', `intent ${parent.id} is ${parent.state}: nothing to protect`);
      const reference = parent.price ?? parent.stopLimitPrice ?? parent.triggerPrice ?? parent.avgFillPrice;
      const prices = legPrices(parent.venue, parent.symbol, parent.side as 'buy' | 'sell', reference ? new Decimal(reference) : null, body.tpPrice, body.slPrice);
      ctx.body = await start(caller, { bracketId: parent.id, tenantId: caller.tenantId, accountId: parent.accountId, credentialId: caller.credentialId, venue: parent.venue, symbol: parent.symbol, parentIntentId: parent.id, ...prices });
    },
  );

  endpoint(
    router,
    openapi,
    { method: 'post', path: '/attach-to-position', summary: 'Attach take-profit / stop-loss legs to the open position in a symbol', tags, ...omsWrite(deps.orm, 'brackets/attach-to-position'), schemas: { body: attachToPositionBody }, responses: { '200': { description: 'The armed bracket', schema: bracketView } } },
    async (ctx, { body }) => {
      const caller = callerOf(ctx);
      const em = scoped(deps.orm, caller.tenantId);
      const { id: accountId } = await targetAccount(em, caller, body.accountId);
      const position = await em.findOne(Position, { accountId, symbol: body.symbol, qty: { $ne: '0' } });
      if (!position) throw new ApiError('invalid_state', `no open position in ${body.symbol}`);
      const side = new Decimal(position.qty).isPos() ? 'buy' : 'sell';
      const prices = legPrices(position.venue, position.symbol, side, new Decimal(position.avgEntryPrice), body.tpPrice, body.slPrice);
      const bracketId = `brk_${randomBytes(10).toString('hex')}`;
      ctx.body = await start(caller, { bracketId, tenantId: caller.tenantId, accountId, credentialId: caller.credentialId, venue: position.venue, symbol: position.symbol, parentIntentId: null, ...prices });
    },
  );

  endpoint(
    router,
    openapi,
    { method: 'post', path: '/modify', summary: 'Move a bracket leg (an armed leg is canceled and re-armed at the new trigger)', tags, ...omsWrite(deps.orm, 'brackets/modify'), schemas: { body: modifyBracketBody }, responses: { '200': { description: 'The bracket after the move', schema: bracketView } } },
    async (ctx, { body }) => {
      const caller = callerOf(ctx);
      const view = await ownedBracket(caller, body.bracketId);
      if (view.state === 'closed' || view.state === 'canceled') throw new ApiError('invalid_state', `bracket ${view.bracketId} is ${view.state}`);
      const move = Object.fromEntries(Object.entries({ tpPrice: body.tpPrice, slPrice: body.slPrice }).filter(([, v]) => v !== undefined).map(([k, v]) => [k, fmt(dec(v!))]));
      ctx.body = await viaWorkflow(
        () => deps.temporal.workflow.getHandle(bracketWorkflowId(view.bracketId)).executeUpdate(moveBracketUpdate, { args: [move] }),
        new ApiError('invalid_state', `bracket ${view.bracketId} has ended`),
      );
    },
  );

  endpoint(router, openapi, { method: 'get', path: '/:bracketId', summary: 'One bracket: state, legs, which leg filled', tags, gate: gate({ audience: 'trader' }), schemas: { params: bracketParams }, responses: { '200': { description: 'The bracket', schema: bracketView } } }, async (ctx, { params }) => {
    ctx.body = await ownedBracket(callerOf(ctx), params.bracketId);
  });

  return router;
}
