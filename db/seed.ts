/**
 * Provisioning used by the dev seed and by tests: tenants, trading groups and credentials.
 * Secrets are returned once and stored only as scrypt hashes.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Scope, Tier } from '../domain/gates.js';
import { ApiError } from '../domain/errors.js';
import { hashSecret, mintKeyPair } from '../domain/auth/secrets.js';
import { newId } from '../domain/ids.js';
import { Credential, Tenant, TradingGroup } from './entities.js';
import { platformEm, scoped } from './orm.js';
import { accountMode, DEFAULT_ACCOUNT_NAME, DEFAULT_PAPER_DEPOSIT_USD, provisionAccount } from './accounts.js';
import type { ExecutionMode } from '../domain/oms/execution.js';

/** Hyperliquid's base-tier perp fees: 1.5 bps maker, 4.5 bps taker. */
export const DEFAULT_FEES = { makerBps: '1.5', takerBps: '4.5' };

/**
 * Creates a tenant (idempotent by slug: an existing slug is returned as it is). `plan` is the plan the
 * platform provisions (domain/tenant/config.ts `planSchema`; default `{}`, the starter plan's defaults).
 */
export async function ensureTenant(
  orm: MikroORM,
  opts: {
    slug: string;
    displayName: string;
    origins: string[];
    isPlatform?: boolean;
    suspended?: boolean;
    plan?: Record<string, unknown>;
  },
) {
  const em = platformEm(orm);
  const existing = await em.findOne(Tenant, { slug: opts.slug });
  if (existing) return existing;
  const tenant = em.create(Tenant, {
    id: newId('ten'),
    slug: opts.slug,
    displayName: opts.displayName,
    origins: opts.origins,
    isPlatform: opts.isPlatform ?? false,
    suspended: opts.suspended ?? false,
    feeSchedule: DEFAULT_FEES,
    plan: opts.plan ?? {},
  });
  await em.flush();
  return tenant;
}

/** Creates a trading group with per-venue leverage caps. */
export async function createTradingGroup(
  orm: MikroORM,
  tenantId: string,
  name: string,
  leverageCaps: Record<string, number>,
) {
  const em = scoped(orm, tenantId);
  const group = em.create(TradingGroup, { id: newId('tg'), tenantId, name, leverageCaps });
  await em.flush();
  return group;
}

/** A new credential and its one-time secret. */
export interface IssuedCredential {
  credentialId: string;
  apiKey: string;
  apiSecret: string;
  ownerId: string;
  accountId: string | null;
}

/**
 * Issues a credential. A trader gets a tier and (unless `accountId` is given or `account: false`)
 * an account: internalised and funded unless `account.executionMode` is `routed`; an operator gets scopes.
 * @throws ApiError `400 validation_failed` when operator scopes are requested for a trader (docs/api.md §2.1).
 */
export async function issueCredential(
  orm: MikroORM,
  opts: {
    tenantId: string;
    audience: 'trader' | 'operator';
    tier?: Tier;
    scopes?: Scope[];
    ownerId?: string;
    accountId?: string;
    /** The trader's new account; `executionMode` default `internalised` (a routed one opens without a deposit). */
    account?:
      false | { name?: string; depositUsd?: string; tradingGroupId?: string | null; executionMode?: ExecutionMode };
    label?: string;
    /** A trader that signs its own intents: its EVM address (docs/api.md §3.1). */
    signerAddress?: string;
    /** The credential's own request rate limit over the deployment's (docs/api.md §8 "Rate limits"; the benchmarks'). */
    rateLimit?: { perSecond: number; burst: number };
  },
): Promise<IssuedCredential> {
  if (opts.audience === 'trader' && opts.scopes?.length) {
    throw new ApiError('validation_failed', [
      {
        path: 'scopes',
        message: 'operator scopes cannot be minted for a trader credential',
        code: 'scopes_not_allowed',
      },
    ]);
  }
  const em = scoped(orm, opts.tenantId);
  const ownerId = opts.ownerId ?? newId(opts.audience === 'trader' ? 'usr' : 'op');
  let accountId = opts.accountId ?? null;
  if (opts.audience === 'trader' && !accountId && opts.account !== false) {
    const a = opts.account || {};
    const mode = a.executionMode ?? 'internalised';
    accountId = (
      await provisionAccount(em, {
        tenantId: opts.tenantId,
        ownerId,
        name: a.name ?? DEFAULT_ACCOUNT_NAME[mode],
        tradingGroupId: a.tradingGroupId ?? null,
        ...accountMode(mode, a.depositUsd ?? DEFAULT_PAPER_DEPOSIT_USD),
      })
    ).id;
  }
  const { apiKey, apiSecret } = mintKeyPair(opts.audience);
  const cred = em.create(Credential, {
    id: newId('cred'),
    tenantId: opts.tenantId,
    apiKey,
    ownerId,
    secretHash: await hashSecret(apiSecret),
    audience: opts.audience,
    tier: opts.audience === 'trader' ? (opts.tier ?? 'fullTrading') : null,
    scopes: opts.audience === 'operator' ? (opts.scopes ?? []) : [],
    accountId,
    signerAddress: opts.signerAddress ?? null,
    label: opts.label ?? `${opts.audience} credential`,
    revokedAt: null,
    rateLimitPerSecond: opts.rateLimit?.perSecond ?? null,
    rateLimitBurst: opts.rateLimit?.burst ?? null,
  });
  await em.flush();
  return { credentialId: cred.id, apiKey, apiSecret, ownerId, accountId };
}

/** Revokes a credential (docs/api.md §5.2): new mints and writes stop at once; reads by live tokens go on. */
export async function revokeCredential(orm: MikroORM, tenantId: string, credentialId: string): Promise<void> {
  const em = scoped(orm, tenantId);
  const cred = await em.findOneOrFail(Credential, { id: credentialId });
  cred.revokedAt = new Date();
  await em.flush();
}
