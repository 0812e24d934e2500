/**
 * `/api/v1/oms/*` (docs/api.md §4.4): compose an order intent, read one, list recent ones.
 * Compose validates every field, checks the account, symbol, lot and tick sizes and the leverage
 * cap, then starts `intent-<intentId>` with an update-with-start that answers once the intent is
 * recorded (the early-return shape); dispatch and fills follow on /ws/risk.
 */
import Router from '@koa/router';
import { createHash, randomBytes } from 'node:crypto';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { ApiError } from '../../domain/errors.js';
import { Decimal, dec, fmt } from '../../domain/decimal.js';
import { OMS_WRITE_TIER } from '../../domain/gates.js';
import { WIRED_VENUES, type ComposeIntent, type IntentView } from '../../domain/oms/intent.js';
import { findSymbol } from '../../domain/market/symbols.js';
import { paperSigningRequest } from '../../domain/oms/signing.js';
import { Account, OrderIntent, Position, PropAccount, PropTemplate, RiskProfile, TradingGroup } from '../../db/entities.js';
import { readMark } from '../../activities/market/marks.js';
import { riskLimitBreach } from '../../domain/prop/risk.js';
import { scoped } from '../../db/orm.js';
import { intentToView } from '../../db/views.js';
import { searchAttributes, batchWorkflowId, chaseUpdate, chaseWorkflowId, cancelUpdate, composeUpdate, intentWorkflowId, modifyUpdate, planUpdate, signResultUpdate, type BatchInput, type BatchPlan, type IntentWorkflowInput } from '../../workflows/definitions.js';
import { viaWorkflow } from '../temporal-errors.js';
import { isRouted } from '../../activities/venues/registry.js';
import { agentBlock, currentAgent } from '../../activities/venues/routed.js';
import { callerOf, gate } from '../middleware/auth.js';
import { idempotency } from '../middleware/idempotency.js';
import { IDEMPOTENCY_HEADER, omsWrite } from '../middleware/oms-write.js';
import type { ApiContext, ApiDeps, ApiState, Caller } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { ownedAccount, targetAccount } from './accounts.js';
import { chaseBody, chaseView, signResultBody, signResultResponse, modifyBody, modifyResponse, batchPlanView, flattenBody, reverseBody, cancelAllBody, cancelAllResponse, cancelBody, cancelResponse, composeIntentBody, intentList, intentParams, intentView } from './oms.schemas.js';

/** A new intent id: `int_` + 20 hex characters. */
export const newIntentId = () => `int_${randomBytes(10).toString('hex')}`;

/**
 * A business id for a write: derived from the credential and its `Idempotency-Key` when there is
 * one, so a retry after a 503 reaches the same workflow instead of starting a second; else random.
 */
function writeId(prefix: 'int' | 'bat', ctx: { path: string; get(h: string): string }, credentialId: string): string {
  const key = ctx.get('idempotency-key');
  if (!key) return `${prefix}_${randomBytes(10).toString('hex')}`;
  return `${prefix}_${createHash('sha256').update(`${credentialId}\n${ctx.path}\n${key}`).digest('hex').slice(0, 20)}`;
}

/** Decimal places of a decimal string. */
const places = (v: string) => new Decimal(v).decimalPlaces();

/**
 * Venue and instrument checks a trader expects at compose, as field issues.
 * @throws ApiError 400 `venue_not_supported`, `symbol_unknown`, `validation_failed`.
 */
export function checkInstrument(body: ComposeIntent) {
  if (!(WIRED_VENUES as readonly string[]).includes(body.venue)) {
    throw new ApiError('venue_not_supported', [{ path: 'body.venue', message: `venue ${body.venue} is not wired in this deployment; see GET /api/v1/venues`, code: 'venue_not_supported' }]);
  }
  const spec = findSymbol(body.venue, body.symbol);
  if (!spec) throw new ApiError('symbol_unknown', [{ path: 'body.symbol', message: `unknown symbol ${body.symbol}; see GET /api/v1/symbols/${body.venue}`, code: 'symbol_unknown' }]);
  const issues = [];
  if (places(body.qty) > spec.szDecimals) issues.push({ path: 'body.qty', message: `${spec.symbol} sizes have at most ${spec.szDecimals} decimals`, code: 'qty_precision' });
  for (const field of ['price', 'triggerPrice', 'stopLimitPrice'] as const) {
    const v = body[field];
    if (v !== undefined && !new Decimal(v).mod(spec.tickSize).isZero()) issues.push({ path: `body.${field}`, message: `${spec.symbol} prices are multiples of ${spec.tickSize}`, code: 'price_tick' });
  }
  if (issues.length) throw new ApiError('validation_failed', issues);
  return spec;
}

/** What a trader reads for each agent refusal at compose (docs/api.md §7). */
const AGENT_BLOCK_DETAIL = {
  credential_missing_agent_wallet: (venue: string) => `no authorised agent for ${venue} on this account: POST /api/v1/accounts/{id}/agents, then have your wallet sign its authorization`,
  agent_authorization_revoked: (venue: string) => `the ${venue} agent of this account was revoked: create and authorise a new one`,
  agent_authorization_expired: (venue: string) => `the ${venue} agent's authorisation expired: create and authorise a new one`,
} as const;

/**
 * A routed venue needs an active, unexpired agent on the account (docs/api.md §1 custody, §7).
 * @throws ApiError `403 credential_missing_agent_wallet`, `agent_authorization_revoked`, `agent_authorization_expired`.
 */
export async function checkAgent(deps: ApiDeps, accountId: string, venue: string): Promise<void> {
  const block = agentBlock(await currentAgent(deps.orm, accountId, venue));
  if (block) throw new ApiError(block, AGENT_BLOCK_DETAIL[block](venue));
}

/** The leverage cap of the account's trading group for this venue, else the symbol's maximum. */
async function leverageCap(deps: ApiDeps, caller: Caller, tradingGroupId: string | null | undefined, venue: string, symbolMax: number): Promise<number> {
  if (!tradingGroupId) return symbolMax;
  const group = await scoped(deps.orm, caller.tenantId).findOne(TradingGroup, { id: tradingGroupId });
  return Math.min(group?.leverageCaps[venue] ?? symbolMax, symbolMax);
}

/**
 * Refuses an order of a challenge account that breaks its template's risk profile
 * (domain/prop/risk.ts). @throws ApiError `400 risk_limit_exceeded`.
 */
async function checkRiskProfile(deps: ApiDeps, caller: Caller, accountId: string, body: ComposeIntent, symbol: string): Promise<void> {
  const em = scoped(deps.orm, caller.tenantId);
  const pa = await em.findOne(PropAccount, { accountId });
  const template = pa && (await em.findOne(PropTemplate, { id: pa.templateId }));
  const profile = template?.riskProfileId ? await em.findOne(RiskProfile, { id: template.riskProfileId }) : null;
  if (!profile) return;
  const price = body.type === 'stop_limit' ? body.stopLimitPrice : (body.price ?? (await readMark(em, body.venue, symbol, deps.config.markMaxAgeMs))?.mark.toFixed());
  if (!price) return; // no mark yet: dispatch refuses the order anyway
  const position = await em.findOne(Position, { accountId, venue: body.venue, symbol });
  const breach = riskLimitBreach(profile, { side: body.side, qty: String(body.qty), priceUsd: String(price), positionQty: position?.qty ?? '0', reduceOnly: body.reduceOnly });
  if (breach) throw new ApiError('risk_limit_exceeded', breach);
}

/**
 * Composes an intent (docs/api.md §2.6, §4.4): checks the account, instrument, leverage cap and (routed
 * venues) the agent, then starts `intent-<intentId>` with an update-with-start that answers once the
 * intent is recorded. Shared by `POST /oms/intents` and smart order routing (`/oms/route-intents`).
 * @throws ApiError as {@link checkInstrument}, {@link checkAgent}, `400 leverage_above_cap`,
 *   `400 risk_limit_exceeded`, `403 account_suspended`, `404 account_not_found`, `403 forbidden`,
 *   `503 service_unavailable` (no workflow answer).
 */
export async function composeIntent(deps: ApiDeps, caller: Caller, body: ComposeIntent, intentId: string): Promise<{ view: IntentView; input: IntentWorkflowInput }> {
  const account = await targetAccount(scoped(deps.orm, caller.tenantId), caller, body.accountId);
  const accountId = account.id;
  if (account.suspendedAt) throw new ApiError('account_suspended', `account ${accountId} is suspended: ${account.suspensionReason ?? 'by the operator'}`);
  const spec = checkInstrument(body);
  const cap = await leverageCap(deps, caller, account.tradingGroupId, body.venue, spec.maxLeverage);
  if (body.leverage > cap) throw new ApiError('leverage_above_cap', `leverage ${body.leverage} is above the cap ${cap} for ${body.venue}`, { cap, requested: body.leverage });
  await checkRiskProfile(deps, caller, accountId, body, spec.symbol);
  const routed = isRouted(body.venue);
  if (routed) await checkAgent(deps, accountId, body.venue);

  const input: IntentWorkflowInput = {
    intentId,
    tenantId: caller.tenantId,
    accountId,
    credentialId: caller.credentialId,
    clientOrderId: body.clientOrderId ?? null,
    venue: body.venue,
    symbol: spec.symbol,
    side: body.side,
    type: body.type,
    qty: body.qty,
    price: body.price ?? null,
    triggerPrice: body.triggerPrice ?? null,
    stopLimitPrice: body.stopLimitPrice ?? null,
    reduceOnly: body.reduceOnly,
    timeInForce: body.timeInForce,
    leverage: String(body.leverage),
    // Routed venues are always signed by the account's agent key (docs/api.md §1 custody).
    signing: caller.signerAddress && !routed ? 'self' : 'platform',
    ...(routed ? { pollMs: deps.config.venues.pollMs } : {}),
  };
  const view: IntentView = await viaWorkflow(() => deps.temporal.workflow.executeUpdateWithStart(composeUpdate, {
    startWorkflowOperation: new WithStartWorkflowOperation('intentWorkflow', {
      workflowId: intentWorkflowId(intentId),
      taskQueue: deps.config.temporal.taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      typedSearchAttributes: searchAttributes(input, input.signing === 'self' ? 'intent_pending' : 'signed_pending_dispatch'),
    }),
  }), new ApiError('invalid_state', `intent ${intentId} ended before it was recorded`));
  return { view, input };
}

export function omsRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/oms' });
  const tags = ['oms'];
  const read = gate({ audience: 'trader' });

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/intents',
      summary: 'Compose an order intent (docs/api.md §2.6); the outcome arrives on /ws/risk',
      tags,
      ...omsWrite(deps.orm, 'intents'),
      schemas: { body: composeIntentBody },
      responses: { '201': { description: 'Composed; `intentId` and the echoed `clientOrderId`', schema: intentView, headers: { 'Idempotency-Replay': '`true` on a replayed response' } } },
    },
    async (ctx, { body }) => {
      const { view, input } = await composeIntent(deps, callerOf(ctx), body, writeId('int', ctx, callerOf(ctx).credentialId));
      ctx.status = 201;
      ctx.body = input.signing === 'self' ? { ...view, signingRequest: paperSigningRequest(input) } : view;
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/intents/:id/sign-result',
      summary: 'Sign an intent_pending intent (self-signing credentials); answers once it is dispatched',
      tags,
      gate: gate({ audience: 'trader', write: true }),
      schemas: { params: intentParams, body: signResultBody },
      use: [idempotency(deps.orm)],
      headers: IDEMPOTENCY_HEADER,
      requires: 'per credential',
      responses: {
        '200': { description: '`{ ok: true, intentId, venueOrderId, resting }`, `inlineFill` when it filled at once', schema: signResultResponse },
        '400': { description: '`{ ok: false, error, detail }` when dispatch was refused; `invalid_signature`', schema: signResultResponse },
      },
    },
    async (ctx, { params, body }) => {
      const caller = callerOf(ctx);
      const intent = await scoped(deps.orm, caller.tenantId).findOne(OrderIntent, { id: params.id, credentialId: caller.credentialId });
      if (!intent) throw new ApiError('intent_not_found', `no intent ${params.id} for this credential`);
      if (intent.state !== 'intent_pending') throw new ApiError('invalid_state', `intent ${intent.id} is ${intent.state}: only intent_pending can be signed`);
      if (intent.batchId && intent.batchLeg) {
        const before = await scoped(deps.orm, caller.tenantId).findOne(OrderIntent, { batchId: intent.batchId, batchLeg: { $lt: intent.batchLeg } }, { orderBy: { batchLeg: 'desc' } });
        if (before && (before.state === 'intent_pending' || before.state === 'signed_pending_dispatch')) {
          throw new ApiError('batch_predecessor_pending', `leg ${before.batchLeg} (${before.id}) of batch ${intent.batchId} has not dispatched yet; sign this leg after it lands`);
        }
      }
      const sign = () => deps.temporal.workflow.getHandle(intentWorkflowId(intent.id)).executeUpdate(signResultUpdate, { args: [body.signedPayload] });
      // A batch leg's workflow starts right after its predecessor dispatched: give it a moment.
      let result;
      for (let waited = 0; ; waited += 100) {
        try {
          result = await viaWorkflow(sign, new ApiError('invalid_state', `intent ${intent.id} is no longer pending`));
          break;
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 'invalid_state' && intent.batchId && waited < 10_000)) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      ctx.status = result.ok ? 200 : 400;
      ctx.body = result;
    },
  );

  /**
   * Cancels a working order through its intent's `cancel` Update. Called once PostgreSQL shows the
   * order open; a workflow that has not yet applied that dispatch waits for it (workflows/intent-run.ts).
   */
  const cancelIntent = (intentId: string) =>
    viaWorkflow(() => deps.temporal.workflow.getHandle(intentWorkflowId(intentId)).executeUpdate(cancelUpdate), new ApiError('invalid_state', `intent ${intentId} is no longer working: nothing to cancel`));

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/cancel',
      summary: "Cancel a working order by the venue's order id",
      tags,
      ...omsWrite(deps.orm, 'cancel'),
      schemas: { body: cancelBody },
      responses: { '200': { description: 'Canceled; 409 invalid_state when the order is not working (filled, canceled, not yet dispatched)', schema: cancelResponse } },
    },
    async (ctx, { body }) => {
      const caller = callerOf(ctx);
      const em = scoped(deps.orm, caller.tenantId);
      // Venue order ids are unique per venue only: prefer the caller's own working order among equal ids.
      const matches = await em.find(OrderIntent, { venueOrderId: body.venueOrderId }, { orderBy: { createdAt: 'desc' } });
      const owned = (await em.find(Account, { id: { $in: matches.map((m) => m.accountId) }, ownerId: caller.ownerId })).map((a) => a.id);
      const intent = matches.find((m) => owned.includes(m.accountId) && m.orderStatus === 'open') ?? matches.find((m) => owned.includes(m.accountId)) ?? matches[0];
      if (!intent) throw new ApiError('order_not_found', `no order ${body.venueOrderId}`);
      await ownedAccount(em, caller, intent.accountId);
      if (intent.orderStatus !== 'open') throw new ApiError('invalid_state', `order ${body.venueOrderId} is ${intent.orderStatus ?? intent.state}: nothing to cancel`);
      const result = await cancelIntent(intent.id);
      ctx.body = { ok: true, ...result };
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/cancel-all',
      summary: 'Cancel every working order of the account (optionally of one symbol)',
      tags,
      ...omsWrite(deps.orm, 'cancel-all'),
      schemas: { body: cancelAllBody },
      responses: { '200': { description: 'What was canceled, and what could not be (e.g. filled meanwhile)', schema: cancelAllResponse } },
    },
    async (ctx, { body }) => {
      const caller = callerOf(ctx);
      const em = scoped(deps.orm, caller.tenantId);
      const { id: accountId } = await targetAccount(em, caller, body.accountId);
      const open = await em.find(OrderIntent, { accountId, orderStatus: 'open', ...(body.symbol ? { symbol: body.symbol } : {}) }, { orderBy: { createdAt: 'asc' } });
      const results = await Promise.allSettled(open.map((i) => cancelIntent(i.id)));
      ctx.body = {
        accountId,
        canceled: open.filter((_, k) => results[k].status === 'fulfilled').map((i) => ({ intentId: i.id, venueOrderId: i.venueOrderId ?? null })),
        failed: open.flatMap((i, k) => {
          const r = results[k];
          return r.status === 'rejected' ? [{ intentId: i.id, venueOrderId: i.venueOrderId ?? null, error: r.reason instanceof ApiError ? r.reason.code : 'internal_error' }] : [];
        }),
      };
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/modify',
      summary: 'Cancel-replace a working order with new numbers; resolves a new intent id',
      tags,
      ...omsWrite(deps.orm, 'modify'),
      schemas: { body: modifyBody },
      responses: { '200': { description: 'The replacement intent; 409 invalid_state when the order is not working', schema: modifyResponse } },
    },
    async (ctx, { body }) => {
      const caller = callerOf(ctx);
      const em = scoped(deps.orm, caller.tenantId);
      const old = await em.findOne(OrderIntent, { id: body.intentId, credentialId: caller.credentialId });
      if (!old) throw new ApiError('intent_not_found', `no intent ${body.intentId} for this credential`);
      if (old.state === 'intent_pending') throw new ApiError('agent_not_dispatchable', `intent ${old.id} was never signed, so it was never dispatched; sign it or compose anew`);
      if (old.orderStatus !== 'open') throw new ApiError('invalid_state', `intent ${old.id} is ${old.state}: no working order to modify`);
      const num = (v: number | undefined, was: string | null | undefined) => (v === undefined ? (was ?? undefined) : fmt(dec(v)));
      const remaining = new Decimal(old.qty).minus(old.filledQty);
      const next: ComposeIntent = {
        venue: old.venue as ComposeIntent['venue'],
        symbol: old.symbol,
        side: old.side as ComposeIntent['side'],
        type: old.type as ComposeIntent['type'],
        qty: num(body.newQty, fmt(remaining))!,
        price: num(body.newPrice, old.price),
        triggerPrice: num(body.newTriggerPrice, old.triggerPrice),
        stopLimitPrice: num(body.newStopLimitPrice, old.stopLimitPrice),
        reduceOnly: old.reduceOnly,
        timeInForce: old.timeInForce as ComposeIntent['timeInForce'],
        leverage: Number(old.leverage),
      };
      const spec = checkInstrument(next);
      const replacement: IntentWorkflowInput = {
        intentId: newIntentId(),
        tenantId: caller.tenantId,
        accountId: old.accountId,
        credentialId: caller.credentialId,
        clientOrderId: old.clientOrderId ?? null,
        venue: next.venue,
        symbol: spec.symbol,
        side: next.side,
        type: next.type,
        qty: next.qty,
        price: next.price ?? null,
        triggerPrice: next.triggerPrice ?? null,
        stopLimitPrice: next.stopLimitPrice ?? null,
        reduceOnly: next.reduceOnly,
        timeInForce: next.timeInForce,
        leverage: old.leverage,
      };
      const result = await viaWorkflow(
        () => deps.temporal.workflow.getHandle(intentWorkflowId(old.id)).executeUpdate(modifyUpdate, { args: [replacement] }),
        new ApiError('invalid_state', `intent ${old.id} is no longer working: nothing to modify`),
      );
      ctx.body = { ok: true, replacedIntentId: result.replacedIntentId, intentId: result.intent.intentId, intent: result.intent };
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/chase',
      summary: 'Chase a working limit order: cancel-replace it at the touch whenever the touch moves, until it fills',
      tags,
      ...omsWrite(deps.orm, 'chase'),
      schemas: { body: chaseBody },
      responses: { '200': { description: 'The chase; each replace resolves a new intent id (currentIntentId)', schema: chaseView } },
    },
    async (ctx, { body }) => {
      const caller = callerOf(ctx);
      const intent = await scoped(deps.orm, caller.tenantId).findOne(OrderIntent, { id: body.intentId, credentialId: caller.credentialId });
      if (!intent) throw new ApiError('intent_not_found', `no intent ${body.intentId} for this credential`);
      if (intent.type !== 'limit' || intent.orderStatus !== 'open') throw new ApiError('invalid_state', `intent ${intent.id} is not a working limit order (${intent.type}, ${intent.orderStatus ?? intent.state})`);
      ctx.body = await viaWorkflow(() => deps.temporal.workflow.executeUpdateWithStart(chaseUpdate, {
        startWorkflowOperation: new WithStartWorkflowOperation('chaseWorkflow', {
          workflowId: chaseWorkflowId(intent.id),
          taskQueue: deps.config.temporal.taskQueue,
          args: [{ chaseId: `chs_${intent.id.replace(/^int_/, '')}`, intentId: intent.id, maxAttempts: body.maxAttempts, intervalMs: body.intervalMs }],
          workflowIdConflictPolicy: 'USE_EXISTING',
          typedSearchAttributes: searchAttributes(intent),
        }),
      }), new ApiError('invalid_state', `the chase of ${intent.id} has ended`));
    },
  );

  /** Starts a flatten or reverse batch and answers its plan (update-with-start, early return). */
  async function startBatch(ctx: ApiContext, caller: Caller, kind: BatchInput['kind'], accountId: string, symbol?: string) {
    const batchId = writeId('bat', ctx, caller.credentialId);
    const input: BatchInput = { batchId, kind, tenantId: caller.tenantId, accountId, credentialId: caller.credentialId, ...(symbol ? { symbol } : {}) };
    const plan: BatchPlan = await viaWorkflow(
      () =>
        deps.temporal.workflow.executeUpdateWithStart(planUpdate, {
          startWorkflowOperation: new WithStartWorkflowOperation('batchWorkflow', {
            workflowId: batchWorkflowId(batchId),
            taskQueue: deps.config.temporal.taskQueue,
            args: [input],
            workflowIdConflictPolicy: 'USE_EXISTING',
            typedSearchAttributes: searchAttributes({ tenantId: caller.tenantId, accountId }),
          }),
        }),
      new ApiError('invalid_state', 'the batch ended before it was planned'),
    );
    return {
      ...plan,
      legs: plan.legs.map((l) => ({ n: l.n, action: l.action, intentId: l.intentId, symbol: l.symbol, ...(l.intent ? { side: l.intent.side, qty: l.intent.qty } : {}) })),
    };
  }

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/flatten',
      summary: 'Close every open position: cancel working orders, then reduce-only market closes, as one batch',
      tags,
      ...omsWrite(deps.orm, 'flatten'),
      schemas: { body: flattenBody },
      responses: { '200': { description: 'The planned batch', schema: batchPlanView } },
    },
    async (ctx, { body }) => {
      const caller = callerOf(ctx);
      const { id: accountId } = await targetAccount(scoped(deps.orm, caller.tenantId), caller, body.accountId);
      ctx.body = await startBatch(ctx, caller, 'flatten', accountId);
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/reverse',
      summary: 'Close the position in a symbol and open the same size on the other side, as one batch',
      tags,
      ...omsWrite(deps.orm, 'reverse'),
      schemas: { body: reverseBody },
      responses: { '200': { description: 'The planned batch; 409 invalid_state without a position', schema: batchPlanView } },
    },
    async (ctx, { body }) => {
      const caller = callerOf(ctx);
      const em = scoped(deps.orm, caller.tenantId);
      const { id: accountId } = await targetAccount(em, caller, body.accountId);
      const position = await em.findOne(Position, { accountId, symbol: body.symbol, qty: { $ne: '0' } });
      if (!position) throw new ApiError('invalid_state', `no open position in ${body.symbol} to reverse`);
      ctx.body = await startBatch(ctx, caller, 'reverse', accountId, body.symbol);
    },
  );

  endpoint(router, openapi, { method: 'get', path: '/intents/:id', summary: "One intent; another credential's intent is 404", tags, gate: read, schemas: { params: intentParams }, responses: { '200': { description: 'Intent', schema: intentView } } }, async (ctx, { params }) => {
    const caller = callerOf(ctx);
    const row = await scoped(deps.orm, caller.tenantId).findOne(OrderIntent, { id: params.id, credentialId: caller.credentialId });
    if (!row) throw new ApiError('intent_not_found', `no intent ${params.id} for this credential`);
    ctx.body = intentToView(row);
  });

  endpoint(router, openapi, { method: 'get', path: '/intents', summary: "The caller's own recent intents, newest first, at most 50", tags, gate: read, schemas: {}, responses: { '200': { description: 'Intents', schema: intentList } } }, async (ctx) => {
    const caller = callerOf(ctx);
    const rows = await scoped(deps.orm, caller.tenantId).find(OrderIntent, { credentialId: caller.credentialId }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: 50 });
    ctx.body = { intents: rows.map(intentToView) };
  });

  return router;
}
