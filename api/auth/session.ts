/**
 * Browser cookie sessions by Sign-In with Ethereum (docs/api.md §5.1; EIP-4361).
 *
 * Flow: `POST /api/auth/siwe/nonce` issues a nonce (single use, 5 min, bound to the tenant) →
 * the wallet signs an EIP-4361 message carrying it → `POST /api/auth/siwe/verify` checks it with
 * {@link checkSiwe} and {@link createSession} sets the `service_session` cookie.
 *
 * Which trader a wallet represents: the owner of the account that has an **active, unexpired agent
 * whose `owner` is the wallet address** (case-insensitive) in the same tenant, on a venue where that
 * owner signed the agent's authorisation (db/agent-wallets.ts `OWNER_SIGNED_VENUES`: Hyperliquid,
 * Aster, Polymarket) — the wallet that authorised the account's agent (modules/custody/routes/accounts/agents.ts)
 * is the account holder's wallet. A Kalshi agent's `owner` is never signed, so it links no wallet. When
 * several accounts qualify, the most recently authorised agent's account wins. No such agent:
 * `403 wallet_not_linked`.
 *
 * Which site may ask for the signature: the message's `domain` and `uri` must name one of the
 * origins the caller allows (the tenant's registered origins and the API's public base URL,
 * modules/auth/commands/siwe.ts), never the request's own `Host` or `X-Forwarded-Host`, which a
 * phishing site relaying a victim's signature controls.
 *
 * Social and email sign-in (modules/auth/commands/oidc.ts, magic-link.ts) open the same session for the trader an
 * identity is linked to (`trader_identities`); such a session has no wallet unless the identity is one (a wallet
 * linked by SIWE, modules/auth/commands/identities.ts), and ends as soon as the identity is removed.
 *
 * The cookie carries an opaque random token (32 bytes, base64url); only its SHA-256 is stored
 * (`sessions.token_hash`). A session lasts 24 h, ends at logout, and stops authenticating as soon as
 * the wallet no longer has an active, unexpired agent on the session's account. A cookie session
 * acts as that trader with tier `fullTrading` and `credentialId` `wallet:<address>` (every session of the wallet shares its intents and idempotency keys); it carries
 * no credential, so the operator surface refuses it and `sign-result` needs a bearer (auth.ts).
 */
import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { verifyMessage, type Hex } from 'viem';
import { generateSiweNonce, parseSiweMessage, validateSiweMessage } from 'viem/siwe';
import { ApiError } from '../../domain/errors.js';
import { tokenHash } from '../../domain/auth/secrets.js';
import { newId } from '../../domain/ids.js';
import { normaliseOrigin } from '../../domain/tenancy.js';
import { walletLinkingAgentSql } from '../../db/agent-wallets.js';
import { platformEm } from '../../db/orm.js';
import type { Caller } from '../context.js';

/** The session cookie's name (docs/api.md §5.1). */
export const SESSION_COOKIE = 'service_session';
/** Session lifetime: 24 hours (ms). */
export const SESSION_TTL_MS = 24 * 60 * 60 * 1000;
/** SIWE nonce lifetime: 5 minutes (ms). */
export const NONCE_TTL_MS = 5 * 60 * 1000;

const conn = (orm: MikroORM) => platformEm(orm).getConnection();

/** Issues a fresh SIWE nonce for a tenant: `{ nonce, expiresAt }` (96 alphanumeric characters, viem `generateSiweNonce`). */
export async function issueNonce(orm: MikroORM, tenantId: string): Promise<{ nonce: string; expiresAt: Date }> {
  const nonce = generateSiweNonce();
  const expiresAt = new Date(Date.now() + NONCE_TTL_MS);
  await conn(orm).execute(`insert into siwe_nonces (nonce, tenant_id, expires_at) values (?, ?, ?)`, [
    nonce,
    tenantId,
    expiresAt,
  ]);
  await conn(orm).execute(`delete from siwe_nonces where expires_at < now() - interval '1 hour'`);
  return { nonce, expiresAt };
}

/** The trader and account a wallet represents in a tenant (module doc), or null when it is not linked. */
export async function linkedTrader(
  orm: MikroORM,
  tenantId: string,
  walletAddress: string,
): Promise<{ ownerId: string; accountId: string } | null> {
  const [row] = await conn(orm).execute<{ owner_id: string; account_id: string }[]>(
    `select a.owner_id, a.id as account_id
       from agent_wallets w join accounts a on a.id = w.account_id and a.tenant_id = w.tenant_id
      where w.tenant_id = ? and lower(w.owner) = lower(?) and ${walletLinkingAgentSql('w')}
      order by w.authorized_at desc nulls last, w.created_at desc limit 1`,
    [tenantId, walletAddress],
  );
  return row ? { ownerId: row.owner_id, accountId: row.account_id } : null;
}

/** What {@link checkSiwe} needs: the signed message, its signature, the origins it may name and the tenant. */
export interface SiweAttempt {
  message: string;
  signature: string;
  /**
   * The origins (`scheme://host[:port]`, normalised) a message may be for: its `uri`'s origin must be
   * one of them and its `domain` the host[:port] of one. Never derived from request headers.
   */
  origins: readonly string[];
  tenantId: string;
  now?: Date;
}

/** The host[:port] of each origin, lower-case (the form of an EIP-4361 `domain`). */
const hostsOf = (origins: readonly string[]) => [...new Set(origins.map((o) => new URL(o).host.toLowerCase()))];

/**
 * Checks a SIWE sign-in: the message parses as EIP-4361 (version 1, inside its
 * `notBefore`/`expirationTime` window), its `domain` is the host[:port] of one of `origins` and its
 * `uri`'s origin is one of `origins`, its nonce was issued to this tenant and is unused and unexpired,
 * and the signature recovers to its `address` (EOA `personal_sign`; contract wallets are not
 * supported). Any chain id. Does not consume the nonce.
 * @returns the signing wallet address, lower-case.
 * @throws ApiError `400 siwe_message_invalid`; `401 siwe_domain_mismatch` with `{ field: 'domain' | 'uri',
 *   expected: string[] (the allowed hosts, or origins for `uri`), actual }`; `401 siwe_nonce_invalid`,
 *   `401 siwe_signature_invalid`.
 */
export async function checkSiwe(orm: MikroORM, a: SiweAttempt): Promise<string> {
  const fields = parseSiweMessage(a.message);
  if (
    !fields.address ||
    !fields.domain ||
    !fields.nonce ||
    !fields.uri ||
    fields.chainId === undefined ||
    !validateSiweMessage({ message: fields, time: a.now ?? new Date() })
  ) {
    throw new ApiError(
      'siwe_message_invalid',
      'message is not a valid, current EIP-4361 message (domain, address, uri, version 1, chain id, nonce, issued/expiration times)',
    );
  }
  const hosts = hostsOf(a.origins);
  if (!hosts.includes(fields.domain.toLowerCase())) {
    throw new ApiError(
      'siwe_domain_mismatch',
      `the message is for ${fields.domain}, which is not a registered origin of this tenant nor this API's public URL: sign in from one of ${hosts.join(', ')}`,
      { field: 'domain', expected: hosts, actual: fields.domain },
    );
  }
  const uriOrigin = normaliseOrigin(fields.uri);
  if (!uriOrigin || !a.origins.includes(uriOrigin)) {
    throw new ApiError(
      'siwe_domain_mismatch',
      `the message's uri ${fields.uri} is not on a registered origin of this tenant nor this API's public URL: sign in from one of ${a.origins.join(', ')}`,
      { field: 'uri', expected: [...a.origins], actual: fields.uri },
    );
  }
  const [nonce] = await conn(orm).execute<{ nonce: string }[]>(
    `select nonce from siwe_nonces where nonce = ? and tenant_id = ? and consumed_at is null and expires_at > now()`,
    [fields.nonce, a.tenantId],
  );
  if (!nonce)
    throw new ApiError(
      'siwe_nonce_invalid',
      'unknown, used or expired nonce: get a new one from POST /api/auth/siwe/nonce',
    );
  const valid =
    /^0x[0-9a-fA-F]+$/.test(a.signature) &&
    (await verifyMessage({ address: fields.address, message: a.message, signature: a.signature as Hex }).catch(
      () => false,
    ));
  if (!valid) throw new ApiError('siwe_signature_invalid', `the signature does not recover to ${fields.address}`);
  return fields.address.toLowerCase();
}
/** Consumes a nonce atomically; false when another request used it first or it expired. */
export async function consumeNonce(orm: MikroORM, tenantId: string, nonce: string): Promise<boolean> {
  const rows = await conn(orm).execute<{ nonce: string }[]>(
    `update siwe_nonces set consumed_at = now() where nonce = ? and tenant_id = ? and consumed_at is null and expires_at > now() returning nonce`,
    [nonce, tenantId],
  );
  return rows.length > 0;
}

/**
 * What a session is opened for: the trader (`ownerId`) and the account it acts on, and how it signed in — a wallet
 * (`walletAddress`, lower-cased here) and/or a linked identity (`identityId`, modules/auth/commands/identities.ts).
 * At least one of the two; an identity session lives as long as its identity stays linked, a wallet session without
 * one as long as the wallet's agent links it (module doc).
 */
export interface NewSession {
  tenantId: string;
  ownerId: string;
  accountId: string;
  walletAddress?: string | null;
  identityId?: string | null;
}

/** Creates a session row; returns the cookie token (secret, shown once), the session id and expiry (24 h). */
export async function createSession(
  orm: MikroORM,
  s: NewSession,
): Promise<{ token: string; sessionId: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const sessionId = newId('ses', 10);
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  await conn(orm).execute(
    `insert into sessions (id, token_hash, tenant_id, wallet_address, identity_id, owner_id, account_id, expires_at) values (?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      sessionId,
      tokenHash(token),
      s.tenantId,
      s.walletAddress?.toLowerCase() ?? null,
      s.identityId ?? null,
      s.ownerId,
      s.accountId,
      expiresAt,
    ],
  );
  return { token, sessionId, expiresAt };
}

/** Ends the session of a cookie token (logout); unknown tokens are ignored. */
export async function revokeSession(orm: MikroORM, token: string): Promise<void> {
  await conn(orm).execute(`update sessions set revoked_at = now() where token_hash = ? and revoked_at is null`, [
    tokenHash(token),
  ]);
}

/**
 * The caller behind a `service_session` cookie token, or null when the token is unknown, expired,
 * logged out, belongs to another tenant than the request resolved to, or what it signed in with no longer
 * links the trader: an identity session's identity was removed (or moved to another trader), a wallet
 * session's wallet no longer has an active agent on the session's account that links it (module doc; a stale
 * cookie is ignored, not an error). `credentialId`: `wallet:<address>` for a session with a wallet, else
 * `identity:<identityId>`.
 */
export async function callerFromSession(
  orm: MikroORM,
  token: string,
  tenantId: string | undefined,
): Promise<Caller | null> {
  const [row] = await conn(orm).execute<
    {
      id: string;
      tenant_id: string;
      wallet_address: string | null;
      identity_id: string | null;
      owner_id: string;
      account_id: string;
      expires_at: Date;
    }[]
  >(
    `select s.id, s.tenant_id, s.wallet_address, s.identity_id, s.owner_id, s.account_id, s.expires_at from sessions s
      where s.token_hash = ? and s.revoked_at is null and s.expires_at > now()
        and case when s.identity_id is not null
          then exists (select 1 from trader_identities i where i.id = s.identity_id and i.tenant_id = s.tenant_id and i.owner_id = s.owner_id)
          else exists (select 1 from agent_wallets w where w.tenant_id = s.tenant_id and w.account_id = s.account_id and lower(w.owner) = s.wallet_address and ${walletLinkingAgentSql('w')})
        end`,
    [tokenHash(token)],
  );
  if (!row || (tenantId && row.tenant_id !== tenantId)) return null;
  return {
    credentialId: row.wallet_address ? `wallet:${row.wallet_address}` : `identity:${row.identity_id}`,
    tenantId: row.tenant_id,
    ownerId: row.owner_id,
    audience: 'trader',
    tier: 'fullTrading',
    scopes: [],
    accountId: row.account_id,
    signerAddress: null,
    credentialRevoked: false,
    jti: `session:${row.id}`,
    tokenExpiresAt: new Date(row.expires_at),
    session: { walletAddress: row.wallet_address, identityId: row.identity_id },
  };
}
