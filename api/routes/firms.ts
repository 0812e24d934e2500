/**
 * Firms (docs/api.md §4.8 `/api/v1/firms/*`, §5.4 `firm:operate`; operator audience, cookie sessions
 * refused). Deploy, go-live, pause, proof and payouts: api/routes/firm-lifecycle.ts.
 *
 * - `POST /api/v1/firms` `{ name, ownerAddress, stablecoinAddress, chainId }` → 201 firm (`draft`).
 * - `GET /api/v1/firms?limit&cursor` → `{ data, nextCursor, hasMore }`, newest first.
 * - `GET /api/v1/firms/{id}` → firm; another tenant's firm is `404 firm_not_found`.
 * - `PATCH /api/v1/firms/{id}` `{ name?, ownerAddress?, stablecoinAddress? }` → firm; the addresses
 *   only while `draft` (`409 invalid_state`).
 * - `GET /api/v1/firms/{id}/readiness` → `{ ready, checks }` (docs/api.md §4.8): `owner_address`,
 *   `stablecoin_address`, `template` (at least one active template), `chain_configured`
 *   (`CHAIN_RPC_URL`), `deployer_configured` (`PROP_DEPLOYER_KEY`).
 */
import Router from '@koa/router';
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isAddress, zeroAddress } from 'viem';
import { ApiError } from '../../domain/errors.js';
import { Firm, PropTemplate, type FirmRow } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { callerOf, gate } from '../middleware/auth.js';
import type { ApiContext, ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { listQuery } from './operator-common.schemas.js';
import { newestFirst } from './operator-list.js';
import { firmParams } from './firm-lifecycle.schemas.js';
import { createFirmBody, firmPage, firmView, patchFirmBody, readinessView } from './firms.schemas.js';

/** A firm row as the API shows it. */
export function toFirmView(f: FirmRow) {
  const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;
  return {
    id: f.id,
    name: f.name,
    ownerAddress: f.ownerAddress,
    chainId: f.chainId,
    stablecoinAddress: f.stablecoinAddress,
    status: f.status as 'draft',
    instanceAddress: f.instanceAddress ?? null,
    rulesHash: f.rulesHash ?? null,
    deployTxHash: f.deployTxHash ?? null,
    deployedAt: iso(f.deployedAt),
    liveAt: iso(f.liveAt),
    pausedAt: iso(f.pausedAt),
    createdAt: new Date(f.createdAt).toISOString(),
  };
}

/** One readiness check (docs/api.md §4.8). */
export interface ReadinessCheck {
  name: 'owner_address' | 'stablecoin_address' | 'template' | 'chain_configured' | 'deployer_configured';
  ok: boolean;
  detail?: string;
}

/** The readiness checks of a firm, in order; `ready` is every check ok. Reads PostgreSQL and the configuration only. */
export async function firmReadiness(em: EntityManager, firm: FirmRow, chain: { rpcUrl: string | null; deployerKey: string | null }): Promise<ReadinessCheck[]> {
  const address = (a: string) => isAddress(a) && a.toLowerCase() !== zeroAddress;
  const templates = await em.count(PropTemplate, { firmId: firm.id, archived: false });
  const check = (name: ReadinessCheck['name'], ok: boolean, detail: string): ReadinessCheck => (ok ? { name, ok } : { name, ok, detail });
  return [
    check('owner_address', address(firm.ownerAddress), 'set ownerAddress to the multisig that will own the instance'),
    check('stablecoin_address', address(firm.stablecoinAddress), 'set stablecoinAddress'),
    check('template', templates > 0, 'create at least one challenge template (POST /api/v1/prop-templates)'),
    check('chain_configured', chain.rpcUrl != null, 'the platform has no CHAIN_RPC_URL'),
    check('deployer_configured', chain.deployerKey != null, 'the platform has no deployer key (PROP_DEPLOYER_KEY)'),
  ];
}

/** The caller's tenant's firm `id`. @throws ApiError `404 firm_not_found`. */
export async function firmOf(em: EntityManager, id: string): Promise<FirmRow> {
  const firm = await em.findOne(Firm, { id });
  if (!firm) throw new ApiError('firm_not_found', `no firm ${id}`);
  return firm;
}

export function firmRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  const tags = ['firms'];
  const read = gate({ audience: 'operator', scope: 'firm:operate' });
  const write = gate({ audience: 'operator', scope: 'firm:operate', write: true });
  const em = (ctx: ApiContext) => scoped(deps.orm, callerOf(ctx).tenantId);

  endpoint(router, openapi, { method: 'post', path: '/firms', summary: 'Create a firm (draft), owned by the operator’s multisig once deployed', tags, gate: write, requires: 'firm:operate', schemas: { body: createFirmBody }, responses: { '201': { description: 'Firm', schema: firmView } } }, async (ctx, { body }) => {
    const e = em(ctx);
    const firm = e.create(Firm, { id: `firm_${randomBytes(8).toString('hex')}`, tenantId: callerOf(ctx).tenantId, name: body.name, ownerAddress: body.ownerAddress, stablecoinAddress: body.stablecoinAddress, chainId: body.chainId, status: 'draft' }, { partial: true });
    await e.flush();
    ctx.status = 201;
    ctx.body = toFirmView(firm);
  });

  endpoint(router, openapi, { method: 'get', path: '/firms', summary: 'The tenant’s firms, newest first', tags, gate: read, requires: 'firm:operate', schemas: { query: listQuery }, responses: { '200': { description: 'Page', schema: firmPage } } }, async (ctx, { query }) => {
    ctx.body = await newestFirst(em(ctx), Firm, {}, query, toFirmView);
  });

  endpoint(router, openapi, { method: 'get', path: '/firms/:id', summary: 'One firm', tags, gate: read, requires: 'firm:operate', schemas: { params: firmParams }, responses: { '200': { description: 'Firm', schema: firmView } } }, async (ctx, { params }) => {
    ctx.body = toFirmView(await firmOf(em(ctx), params.id));
  });

  endpoint(router, openapi, { method: 'patch', path: '/firms/:id', summary: 'Rename a firm; change its addresses while draft', tags, gate: write, requires: 'firm:operate', schemas: { params: firmParams, body: patchFirmBody }, responses: { '200': { description: 'Firm', schema: firmView } } }, async (ctx, { params, body }) => {
    const e = em(ctx);
    const firm = await firmOf(e, params.id);
    if ((body.ownerAddress || body.stablecoinAddress) && firm.status !== 'draft') throw new ApiError('invalid_state', `firm ${firm.id} is ${firm.status}; its addresses are fixed once deployed`);
    Object.assign(firm, Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)));
    await e.flush();
    ctx.body = toFirmView(firm);
  });

  endpoint(router, openapi, { method: 'get', path: '/firms/:id/readiness', summary: 'Readiness to deploy: `ready` and each check, `deployer_configured` included', tags, gate: read, requires: 'firm:operate', schemas: { params: firmParams }, responses: { '200': { description: 'Readiness', schema: readinessView } } }, async (ctx, { params }) => {
    const e = em(ctx);
    const checks = await firmReadiness(e, await firmOf(e, params.id), deps.config.chain);
    ctx.body = { ready: checks.every((c) => c.ok), checks };
  });

  return router;
}
