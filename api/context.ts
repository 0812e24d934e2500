/**
 * The api's dependencies and per-request state, injected through `createApp(deps)`; no globals.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type Koa from 'koa';
import type { Config } from '../config.js';
import type { Audience, Tier } from '../domain/gates.js';
import type { ApiMetrics } from './ops/metrics.js';
import type { ReadinessReport } from '../infra/readiness.js';
import type { AuthCache } from './auth/auth-cache.js';
import type { AccountStateCache } from '../db/account-state-cache.js';

/** What createApp needs. */
export interface ApiDeps {
  orm: MikroORM;
  temporal: Client;
  config: Config;
  logger: Logger;
  /** This process's Prometheus registry and metrics (api/ops/metrics.ts; `GET /metrics`). */
  metrics: ApiMetrics;
  /** Checks PostgreSQL and Temporal (infra/readiness.ts; `GET /readyz`); never throws. */
  readiness: () => Promise<ReadinessReport>;
  /** Tenants, credentials and revoked tokens as authentication reads them, cached (api/auth/auth-cache.ts). */
  auth: AuthCache;
  /** The rows of account state, cached (db/account-state-cache.ts). */
  accountStates: AccountStateCache;
}

/** The tenant a request resolved to (docs/api.md §5.6). */
export interface ResolvedTenant {
  id: string;
  slug: string;
  suspended: boolean;
}

/** The authenticated caller, from the bearer's claims and its credential row (docs/api.md §5.2). */
export interface Caller {
  credentialId: string;
  tenantId: string;
  /** The trader or operator this credential acts for; owns accounts. */
  ownerId: string;
  audience: Audience;
  tier: Tier | null;
  scopes: string[];
  accountId: string | null;
  /** Set when the credential signs its own intents (docs/api.md §3.1): the EVM address its signatures recover to. */
  signerAddress: string | null;
  /** The credential was revoked: reads still work until the token expires, writes do not. */
  credentialRevoked: boolean;
  jti: string;
  tokenExpiresAt: Date;
  /**
   * Set when the caller is a `service_session` cookie session (docs/api.md §5.1), not a bearer: the wallet
   * that signed in (lower-case 0x address), or null for a social or email sign-in, and the linked identity it signed
   * in with (`trader_identities.id`), or null for a wallet linked by its agent. Such a caller acts as the trader the
   * wallet or identity is linked to (api/auth/session.ts); `credentialId` is `wallet:<address>` (lower-case) when
   * there is a wallet, so every session of one wallet sees the intents it composed, else `identity:<id>`.
   */
  session?: { walletAddress: string | null; identityId: string | null };
}

/** Koa state for every request. */
export interface ApiState {
  requestId: string;
  log: Logger;
  tenant?: ResolvedTenant;
  caller?: Caller;
  input?: unknown;
}

export type ApiContext = Koa.ParameterizedContext<ApiState>;
export type ApiMiddleware = Koa.Middleware<ApiState>;
