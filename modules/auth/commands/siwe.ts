/**
 * `POST /api/auth/siwe/verify` (docs/api.md §5.1; EIP-4361): a signed SIWE message becomes a cookie
 * session acting as the trader the wallet is linked to (api/auth/session.ts: which trader, what a
 * session may do).
 *
 * Domain binding: the message must be for one of the tenant's registered origins or the API's public
 * base URL (`PUBLIC_BASE_URL`, default `http://HOST:PORT`). The request's `Host` and `X-Forwarded-Host`
 * play no part: a phishing site relaying a victim's signature controls both, and could otherwise have
 * the victim sign a message for its own domain and log in with it.
 */
import { parseSiweMessage } from 'viem/siwe';
import { ApiError } from '../../../domain/errors.js';
import { normaliseOrigin } from '../../../domain/tenancy.js';
import { Tenant } from '../../../db/entities.js';
import { platformEm } from '../../../db/orm.js';
import { checkSiwe, consumeNonce, createSession, linkedTrader } from '../../../api/auth/session.js';
import type { ApiDeps } from '../../../api/context.js';
import { walletIdentity } from './identities.js';

/**
 * The origins a browser sign-in of `tenantId` may be on (`scheme://host[:port]`, normalised, no duplicates): the
 * tenant's registered origins, then the origin of `publicBaseUrl`. Malformed entries are skipped. A SIWE message must
 * name one; an OpenID or magic-link sign-in comes back to one (oidc.ts `pageOrigin`).
 */
export async function signinOrigins(deps: ApiDeps, tenantId: string, publicBaseUrl: string): Promise<string[]> {
  const tenant = await platformEm(deps.orm).findOneOrFail(Tenant, { id: tenantId });
  const origins = [...tenant.origins, publicBaseUrl].map((o) => normaliseOrigin(o));
  return [...new Set(origins.filter((o): o is string => o !== null))];
}

/**
 * Verifies the message (domain and uri on an origin of {@link signinOrigins}, nonce, signature), finds
 * the linked trader (by its agent, api/auth/session.ts `linkedTrader`, else a wallet identity linked with
 * `POST /api/auth/identities/wallet`, identities.ts), uses the nonce once and opens a 24-hour session; answers its token (for the
 * cookie) and its view. `publicBaseUrl` is the API's public base URL (never a request header). A
 * refused attempt writes nothing (the nonce stays usable).
 * @throws ApiError `400 siwe_message_invalid`, `401 siwe_domain_mismatch` (`field`: `domain` or `uri`,
 *   `expected`: the allowed hosts or origins, `actual`), `401 siwe_nonce_invalid`,
 *   `401 siwe_signature_invalid`, `403 wallet_not_linked`.
 */
export async function signInWithEthereum(
  deps: ApiDeps,
  tenantId: string,
  publicBaseUrl: string,
  body: { message: string; signature: string },
) {
  const origins = await signinOrigins(deps, tenantId, publicBaseUrl);
  const walletAddress = await checkSiwe(deps.orm, {
    message: body.message,
    signature: body.signature,
    origins,
    tenantId,
  });
  const linked =
    (await linkedTrader(deps.orm, tenantId, walletAddress)) ?? (await walletIdentity(deps, tenantId, walletAddress));
  if (!linked) {
    throw new ApiError(
      'wallet_not_linked',
      `wallet ${walletAddress} is not linked to an account here: authorise an agent on Hyperliquid, Aster or ` +
        'Polymarket with this wallet as its owner first (POST /api/v1/accounts/{id}/agents, then sign its ' +
        'authorization; a Kalshi agent links no wallet), or link it to your trader while signed in (POST /api/auth/identities/wallet), then sign in again',
    );
  }
  if (!(await consumeNonce(deps.orm, tenantId, parseSiweMessage(body.message).nonce!)))
    throw new ApiError('siwe_nonce_invalid', 'this nonce was just used: get a new one from POST /api/auth/siwe/nonce');
  const session = await createSession(deps.orm, { tenantId, walletAddress, ...linked });
  return {
    token: session.token,
    view: {
      sessionId: session.sessionId,
      walletAddress,
      accountId: linked.accountId,
      tier: 'fullTrading' as const,
      expiresAt: session.expiresAt.toISOString(),
    },
  };
}
