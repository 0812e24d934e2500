/**
 * Prop accounts and account suspension (docs/api.md §3.5, §4.8, §5.4 `prop:manage`; operator audience).
 * Reset and promotion: api/routes/prop-lifecycle.ts; a trader buys a challenge at
 * `POST /api/v1/prop/challenges` (api/routes/challenges.ts).
 *
 * - `GET /api/v1/prop-accounts?firmId&status&limit&cursor` → page, newest first.
 * - `GET /api/v1/prop-accounts/{id}` → prop account (`404 prop_account_not_found`).
 * - `PATCH /api/v1/accounts/{id}/suspension` `{ suspended, reason? }` → the account's suspension;
 *   compose refuses a suspended account's orders with `403 account_suspended` (flatten and cancel
 *   through the OMS batch still run). Any account of the tenant (`404 account_not_found`).
 */
import Router from '@koa/router';
import { ApiError } from '../../domain/errors.js';
import { Account, PropAccount, type PropAccountRow } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { callerOf, gate } from '../middleware/auth.js';
import type { ApiContext, ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { accountParams } from './accounts.schemas.js';
import { newestFirst } from './operator-list.js';
import { propAccountListQuery, propAccountPage, propAccountParams, propAccountViewSchema, suspensionBody, suspensionView } from './prop-accounts.schemas.js';

/** A prop account row as the operator sees it. */
export function propAccountView(pa: PropAccountRow) {
  const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;
  return {
    id: pa.id,
    firmId: pa.firmId,
    templateId: pa.templateId,
    accountId: pa.accountId,
    ownerId: pa.ownerId,
    status: pa.status as 'active',
    startingBalanceUsd: pa.startingBalanceUsd,
    peakEquityUsd: pa.peakEquityUsd,
    tradingDays: pa.tradingDays,
    breachReason: pa.breachReason ?? null,
    payoutCeilingUsd: pa.payoutCeilingUsd ?? null,
    paidOutUsd: pa.paidOutUsd,
    attempt: pa.attempt,
    depositTxHash: pa.depositTxHash ?? null,
    passedAt: iso(pa.passedAt),
    breachedAt: iso(pa.breachedAt),
    createdAt: new Date(pa.createdAt).toISOString(),
  };
}

export function propAccountRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  const tags = ['prop-accounts'];
  const read = gate({ audience: 'operator', scope: 'prop:manage' });
  const write = gate({ audience: 'operator', scope: 'prop:manage', write: true });
  const em = (ctx: ApiContext) => scoped(deps.orm, callerOf(ctx).tenantId);

  endpoint(router, openapi, { method: 'get', path: '/prop-accounts', summary: 'Challenges of the tenant’s firms, newest first', tags, gate: read, requires: 'prop:manage', schemas: { query: propAccountListQuery }, responses: { '200': { description: 'Page', schema: propAccountPage } } }, async (ctx, { query }) => {
    const where = { ...(query.firmId ? { firmId: query.firmId } : {}), ...(query.status ? { status: query.status } : {}) };
    ctx.body = await newestFirst(em(ctx), PropAccount, where, query, propAccountView);
  });

  endpoint(router, openapi, { method: 'get', path: '/prop-accounts/:id', summary: 'One challenge', tags, gate: read, requires: 'prop:manage', schemas: { params: propAccountParams }, responses: { '200': { description: 'Prop account', schema: propAccountViewSchema } } }, async (ctx, { params }) => {
    const pa = await em(ctx).findOne(PropAccount, { id: params.id });
    if (!pa) throw new ApiError('prop_account_not_found', `no prop account ${params.id}`);
    ctx.body = propAccountView(pa);
  });

  endpoint(router, openapi, { method: 'patch', path: '/accounts/:id/suspension', summary: 'Suspend an account (compose refuses its orders) or lift the suspension', tags, gate: write, requires: 'prop:manage', schemas: { params: accountParams, body: suspensionBody }, responses: { '200': { description: 'Suspension', schema: suspensionView } } }, async (ctx, { params, body }) => {
    const e = em(ctx);
    const account = await e.findOne(Account, { id: params.id });
    if (!account) throw new ApiError('account_not_found', `no account ${params.id}`);
    Object.assign(account, body.suspended ? { suspendedAt: account.suspendedAt ?? new Date(), suspensionReason: body.reason ?? account.suspensionReason ?? 'suspended by the operator' } : { suspendedAt: null, suspensionReason: null });
    await e.flush();
    ctx.body = { accountId: account.id, suspended: account.suspendedAt != null, suspendedAt: account.suspendedAt?.toISOString() ?? null, reason: account.suspensionReason ?? null };
  });

  return router;
}
