/**
 * `/api/v1/firms` and `/api/v1/firms/{id}/*` (docs/api.md §4.8, §5.4 `firm:operate`; operator audience,
 * cookie sessions refused): the firm, its readiness and its deploy lifecycle. Payouts: firms/payouts.ts.
 *
 * - `POST /api/v1/firms` `{ name, ownerAddress, stablecoinAddress, chainId }` → 201 firm (`draft`).
 * - `GET /api/v1/firms?limit&cursor` → `{ data, nextCursor, hasMore }`, newest first.
 * - `GET /api/v1/firms/{id}` → firm; another tenant's firm is `404 firm_not_found`.
 * - `PATCH /api/v1/firms/{id}` `{ name?, ownerAddress?, stablecoinAddress? }` → firm; the addresses
 *   only while `draft` (`409 invalid_state`).
 * - `GET /api/v1/firms/{id}/readiness` → `{ ready, checks }`: `owner_address`, `stablecoin_address`,
 *   `template` (at least one active template), `chain_configured` (`CHAIN_RPC_URL`), `deployer_configured` (`PROP_DEPLOYER_KEY`).
 * - `POST /api/v1/firms/{id}/deploy` `{ dryRun? }`: dry run → 200 readiness without the deployer check, the
 *   canonical rules, their hash and the constructor arguments (nothing is broadcast); live →
 *   `503 deployer_unconfigured` without a deployer, `409 firm_not_ready` with `checks` when a check
 *   fails, else 202 with the deployment (a repeated deploy attaches to the running one).
 * - `GET /api/v1/firms/{id}/deployment` → the step, deployer, nonce, transaction hash, instance, block and
 *   gas (`404 deployment_not_found` before any deploy).
 * - `POST /api/v1/firms/{id}/live`, `/pause` → the deployment after the transition (`409 invalid_state`
 *   when not deployed / not live).
 * - `GET /api/v1/firms/{id}/proof` → the transparency bundle at any status (a firm not deployed shows the
 *   `not_deployed` reconciliation); the public `/api/prop/transparency` lists live firms.
 * The work: api/commands/firms/, modules/prop/queries/firms.ts.
 */
import Router from '@koa/router';
import { ApiError } from '../../../../domain/errors.js';
import { Firm } from '../../../../db/entities.js';
import { deployDryRun, deployFirm, setFirmStatus } from '../../commands/firm-deploy.js';
import { createFirm, updateFirm } from '../../commands/firms.js';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import { callerOf } from '../../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { toFirmView } from '../../presenters/firms.js';
import { deployment, firmOf, firmReadiness } from '../../queries/firms.js';
import { newestFirst } from '../../../../api/operator-list.js';
import { firmBundles } from '../../queries/prop-proof.js';
import { operatorSurface } from '../../../../api/route.js';
import { listQuery } from '../../../../api/operator-common.schemas.js';
import { firmBundle } from '../prop/transparency.schemas.js';
import {
  createFirmBody,
  deployBody,
  deploymentView,
  dryRunView,
  firmPage,
  firmParams,
  firmView,
  patchFirmBody,
  readinessView,
} from './firms.schemas.js';
import { WORKFLOW_UNAVAILABLE } from '../../../../api/temporal-errors.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function firmRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const { router, route, read, write, em } = operatorSurface(deps, openapi, 'firm:operate', ['firms']);

  route
    .post('/firms', 'Create a firm (draft), owned by the operator’s multisig once deployed', write)
    .input({ body: createFirmBody })
    .answers({ '201': { description: 'Firm', schema: firmView } })
    .handle(async (ctx, { body }) => {
      const firm = await createFirm(deps, callerOf(ctx), body);
      ctx.status = 201;
      ctx.body = toFirmView(firm);
    });

  route
    .get('/firms', 'The tenant’s firms, newest first', read)
    .input({ query: listQuery })
    .answers({ '200': { description: 'Page', schema: firmPage } })
    .handle(async (ctx, { query }) => {
      ctx.body = await newestFirst(em(ctx), Firm, {}, query, toFirmView);
    });

  route
    .get('/firms/:id', 'One firm', read)
    .input({ params: firmParams })
    .answers({ '200': { description: 'Firm', schema: firmView } })
    .handle(async (ctx, { params }) => {
      ctx.body = toFirmView(await firmOf(em(ctx), params.id));
    });

  route
    .patch('/firms/:id', 'Rename a firm; change its addresses while draft', write)
    .input({ params: firmParams, body: patchFirmBody })
    .answers({ '200': { description: 'Firm', schema: firmView } })
    .handle(async (ctx, { params, body }) => {
      ctx.body = toFirmView(await updateFirm(deps, callerOf(ctx), params.id, body));
    });

  route
    .get('/firms/:id/readiness', 'Readiness to deploy: `ready` and each check, `deployer_configured` included', read)
    .input({ params: firmParams })
    .answers({ '200': { description: 'Readiness', schema: readinessView } })
    .handle(async (ctx, { params }) => {
      const e = em(ctx);
      const checks = await firmReadiness(e, await firmOf(e, params.id), deps.config.chain);
      ctx.body = { ready: checks.every((c) => c.ok), checks };
    });

  route
    .post(
      '/firms/:id/deploy',
      'Deploy the firm’s PropInstance (dry run, or live by the gas-only platform deployer)',
      write,
    )
    .input({ params: firmParams, body: deployBody })
    .answers({
      '200': { description: 'Dry run', schema: dryRunView },
      '202': { description: 'Deployment started (or already running)', schema: deploymentView },
      '503': {
        description: `\`deployer_unconfigured\`: no platform deployer key (PROP_DEPLOYER_KEY); ${WORKFLOW_UNAVAILABLE.description}`,
      },
    })
    .handle(async (ctx, { params, body }) => {
      if (body.dryRun) {
        ctx.body = await deployDryRun(deps, callerOf(ctx), params.id);
        return;
      }
      const started = await deployFirm(deps, callerOf(ctx), params.id);
      ctx.status = 202;
      ctx.body = started;
    });

  route
    .get('/firms/:id/deployment', 'The deploy’s current step, transaction hash and instance', read)
    .input({ params: firmParams })
    .answers({ '200': { description: 'Deployment', schema: deploymentView }, '503': WORKFLOW_UNAVAILABLE })
    .handle(async (ctx, { params }) => {
      const firm = await firmOf(em(ctx), params.id);
      ctx.body = await deployment(
        deps,
        firm.id,
        new ApiError('deployment_not_found', `firm ${firm.id} was never deployed`),
      );
    });

  for (const [path, to, summary] of [
    ['live', 'live', 'Go live (from deployed or paused)'],
    ['pause', 'paused', 'Pause a live firm'],
  ] as const) {
    route
      .post(`/firms/:id/${path}`, summary, write)
      .input({ params: firmParams })
      .answers({ '200': { description: 'Deployment', schema: deploymentView } })
      .handle(async (ctx, { params }) => {
        ctx.body = await setFirmStatus(deps, callerOf(ctx), params.id, to);
      });
  }

  route
    .get(
      '/firms/:id/proof',
      'The firm’s transparency bundle at any status (`not_deployed` before its deploy); the public page shows it once live',
      read,
    )
    .input({ params: firmParams })
    .answers({ '200': { description: 'Firm bundle', schema: firmBundle } })
    .handle(async (ctx, { params }) => {
      const e = em(ctx);
      const firm = await firmOf(e, params.id);
      ctx.body = (
        await firmBundles({ temporal: deps.temporal, taskQueue: deps.config.temporal.taskQueue }, e, [firm], firm.id)
      )[0];
    });

  return router;
}
