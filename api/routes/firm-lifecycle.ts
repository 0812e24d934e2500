/**
 * A firm's deploy lifecycle and payout approvals (docs/api.md §1 custody rules, §4.8, §5.4
 * `firm:operate`; operator audience). The api never touches the chain: it starts, queries and
 * updates the workflows `firm-deploy-<firmId>` and `payout-<payoutId>`.
 *
 * - `POST /api/v1/firms/{id}/deploy` `{ dryRun? }`:
 *   dry run → 200 readiness without the deployer check, the canonical rules, their hash and the
 *   constructor arguments (nothing is broadcast); live → `503 deployer_unconfigured` without a
 *   deployer, `409 firm_not_ready` with `checks` when a check fails, else 202 with the deployment
 *   (a repeated deploy attaches to the running one).
 * - `GET /api/v1/firms/{id}/deployment` → the step, deployer, nonce, transaction hash, instance,
 *   block and gas (`404 deployment_not_found` before any deploy).
 * - `POST /api/v1/firms/{id}/live`, `/pause` → the deployment after the transition
 *   (`409 invalid_state` when not deployed / not live).
 * - `GET /api/v1/firms/{id}/proof` → the transparency bundle at any status (a firm not deployed
 *   shows the `not_deployed` reconciliation); the public `/api/prop/transparency` lists live firms.
 * - `GET /api/v1/firms/{id}/payouts?status` → `{ data }`, newest first.
 * - `GET /api/v1/firms/{id}/payouts/{payoutId}` → the payout with `safeTx` (what the owners sign).
 * - `POST /api/v1/firms/{id}/payouts/{payoutId}/authorization` `{ signatures }` → the payout
 *   `authorized` (`400 payout_authorization_invalid` when the signatures do not verify on-chain
 *   against the multisig's owners and threshold; `409 invalid_state` when not awaiting one).
 */
import Router from '@koa/router';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors.js';
import { Payout, type PayoutRow } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { firmRules, idBytes32 } from '../../activities/prop/firm-deploy.js';
import { rulesHash } from '../../activities/chain/rules-hash.js';
import { SA, authorizePayoutUpdate, firmDeployQuery, firmDeployWorkflowId, firmStatusUpdate, payoutQuery, payoutWorkflowId, type PayoutStatus } from '../../workflows/definitions.js';
import { viaWorkflow } from '../temporal-errors.js';
import { callerOf, gate } from '../middleware/auth.js';
import type { ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { firmBundles } from '../prop-proof.js';
import { firmBundle } from './transparency.schemas.js';
import { firmOf, firmReadiness } from './firms.js';
import { authorizePayoutBody, deployBody, deploymentView, dryRunView, firmParams, firmPayoutParams, payoutListQuery, payoutView } from './firm-lifecycle.schemas.js';

/** A payout row as the API shows it; `safeTx` from the workflow when asked for one payout. */
export function toPayoutView(p: PayoutRow, live?: PayoutStatus | null) {
  return {
    payoutId: p.id,
    firmId: p.firmId,
    propAccountId: p.propAccountId,
    amountUsd: p.amountUsd,
    toAddress: p.toAddress,
    status: (live?.status ?? p.status) as PayoutRow['status'] as 'requested',
    safeTxHash: live?.safeTxHash ?? p.safeTxHash ?? null,
    ...(live ? { safeTx: live.safeTx } : {}),
    signers: live?.signers.length ? live.signers : (p.signers ?? []),
    executedTxHash: live?.executedTxHash ?? p.executedTxHash ?? null,
    createdAt: new Date(p.createdAt).toISOString(),
    authorizedAt: p.authorizedAt?.toISOString() ?? null,
    executedAt: p.executedAt?.toISOString() ?? null,
  };
}

export function firmLifecycleRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  const tags = ['firms'];
  const operate = gate({ audience: 'operator', scope: 'firm:operate', write: true });
  const read = gate({ audience: 'operator', scope: 'firm:operate' });
  const em = (ctx: Parameters<typeof callerOf>[0]) => scoped(deps.orm, callerOf(ctx).tenantId);

  const deployment = (firmId: string) => deps.temporal.workflow.getHandle(firmDeployWorkflowId(firmId));

  endpoint(
    router,
    openapi,
    { method: 'post', path: '/firms/:id/deploy', summary: 'Deploy the firm’s PropInstance (dry run, or live by the gas-only platform deployer)', tags, gate: operate, requires: 'firm:operate', schemas: { params: firmParams, body: deployBody }, responses: { '200': { description: 'Dry run', schema: dryRunView }, '202': { description: 'Deployment started (or already running)', schema: deploymentView } } },
    async (ctx, { params, body }) => {
      const e = em(ctx);
      const firm = await firmOf(e, params.id);
      const checks = await firmReadiness(e, firm, deps.config.chain);
      if (body.dryRun) {
        const rules = await firmRules({ orm: deps.orm, chain: deps.config.chain }, firm.tenantId, firm.id);
        const others = checks.filter((c) => c.name !== 'deployer_configured');
        ctx.body = { dryRun: true, firmId: firm.id, ready: others.every((c) => c.ok), checks: others, constructor: { owner: firm.ownerAddress, stablecoin: firm.stablecoinAddress, firmId: idBytes32(firm.id), rulesHash: rulesHash(rules) }, rules, chainId: firm.chainId };
        return;
      }
      if (!deps.config.chain.deployerKey) throw new ApiError('deployer_unconfigured', 'no platform deployer is configured (PROP_DEPLOYER_KEY)');
      const failed = checks.filter((c) => !c.ok);
      if (failed.length) throw new ApiError('firm_not_ready', `readiness checks failed: ${failed.map((c) => c.name).join(', ')}`, { checks });
      if (firm.status !== 'draft' && firm.status !== 'deploying') throw new ApiError('invalid_state', `firm ${firm.id} is already ${firm.status}`);
      await deps.temporal.workflow.start('firmDeployWorkflow', {
        workflowId: firmDeployWorkflowId(firm.id),
        taskQueue: deps.config.temporal.taskQueue,
        args: [{ tenantId: firm.tenantId, firmId: firm.id, pollMs: deps.config.chain.pollMs }],
        workflowIdConflictPolicy: 'USE_EXISTING',
        typedSearchAttributes: [{ key: SA.tenantId, value: firm.tenantId }],
      });
      ctx.status = 202;
      ctx.body = await viaWorkflow(() => deployment(firm.id).query(firmDeployQuery), new ApiError('deployment_not_found', `no deployment of ${firm.id}`));
    },
  );

  endpoint(router, openapi, { method: 'get', path: '/firms/:id/deployment', summary: 'The deploy’s current step, transaction hash and instance', tags, gate: read, requires: 'firm:operate', schemas: { params: firmParams }, responses: { '200': { description: 'Deployment', schema: deploymentView } } }, async (ctx, { params }) => {
    const firm = await firmOf(em(ctx), params.id);
    ctx.body = await viaWorkflow(() => deployment(firm.id).query(firmDeployQuery), new ApiError('deployment_not_found', `firm ${firm.id} was never deployed`));
  });

  for (const [path, to, summary] of [['live', 'live', 'Go live (from deployed or paused)'], ['pause', 'paused', 'Pause a live firm']] as const) {
    endpoint(router, openapi, { method: 'post', path: `/firms/:id/${path}`, summary, tags, gate: operate, requires: 'firm:operate', schemas: { params: firmParams }, responses: { '200': { description: 'Deployment', schema: deploymentView } } }, async (ctx, { params }) => {
      const firm = await firmOf(em(ctx), params.id);
      ctx.body = await viaWorkflow(() => deployment(firm.id).executeUpdate(firmStatusUpdate, { args: [{ to }] }), new ApiError('invalid_state', `firm ${firm.id} is not deployed`));
    });
  }

  endpoint(router, openapi, { method: 'get', path: '/firms/:id/proof', summary: 'The firm’s transparency bundle at any status (`not_deployed` before its deploy); the public page shows it once live', tags, gate: read, requires: 'firm:operate', schemas: { params: firmParams }, responses: { '200': { description: 'Firm bundle', schema: firmBundle } } }, async (ctx, { params }) => {
    const e = em(ctx);
    const firm = await firmOf(e, params.id);
    ctx.body = (await firmBundles({ temporal: deps.temporal, taskQueue: deps.config.temporal.taskQueue }, e, [firm], firm.id))[0];
  });

  endpoint(router, openapi, { method: 'get', path: '/firms/:id/payouts', summary: 'Payout requests of the firm, newest first', tags, gate: read, requires: 'firm:operate', schemas: { params: firmParams, query: payoutListQuery }, responses: { '200': { description: '{ data }' } } }, async (ctx, { params, query }) => {
    const e = em(ctx);
    await firmOf(e, params.id);
    const rows = await e.find(Payout, { firmId: params.id, ...(query.status ? { status: query.status } : {}) }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: 500 });
    ctx.body = { data: rows.map((p) => toPayoutView(p)) };
  });

  async function payoutOf(e: EntityManager, firmId: string, payoutId: string): Promise<PayoutRow> {
    const p = await e.findOne(Payout, { id: payoutId, firmId });
    if (!p) throw new ApiError('payout_not_found', `no payout ${payoutId} of firm ${firmId}`);
    return p;
  }

  endpoint(router, openapi, { method: 'get', path: '/firms/:id/payouts/:payoutId', summary: 'One payout, with the multisig transaction the owners sign', tags, gate: read, requires: 'firm:operate', schemas: { params: firmPayoutParams }, responses: { '200': { description: 'Payout', schema: payoutView } } }, async (ctx, { params }) => {
    const p = await payoutOf(em(ctx), params.id, params.payoutId);
    const live = await deps.temporal.workflow.getHandle(payoutWorkflowId(p.id)).query(payoutQuery).catch(() => null);
    ctx.body = toPayoutView(p, live);
  });

  endpoint(
    router,
    openapi,
    { method: 'post', path: '/firms/:id/payouts/:payoutId/authorization', summary: "Authorise a payout with the owners' multisig signatures (verified on-chain)", tags, gate: operate, requires: 'firm:operate', schemas: { params: firmPayoutParams, body: authorizePayoutBody }, responses: { '200': { description: 'Payout (authorized)', schema: payoutView } } },
    async (ctx, { params, body }) => {
      const e = em(ctx);
      const p = await payoutOf(e, params.id, params.payoutId);
      const live = await viaWorkflow(() => deps.temporal.workflow.getHandle(payoutWorkflowId(p.id)).executeUpdate(authorizePayoutUpdate, { args: [{ signatures: body.signatures }] }), new ApiError('invalid_state', `payout ${p.id} is ${p.status}`));
      ctx.body = toPayoutView(await e.findOneOrFail(Payout, { id: p.id }, { refresh: true }), live);
    },
  );

  return router;
}
