/**
 * `POST /api/auth/siwe/verify` (docs/api.md §5.1; EIP-4361): a signed SIWE message becomes a cookie
 * session acting as the trader the wallet is linked to (api/auth/session.ts: which trader, what a
 * session may do).
 */
import { parseSiweMessage } from 'viem/siwe';
import { ApiError } from '../../../domain/errors.js';
import { checkSiwe, consumeNonce, createSession, linkedTrader } from '../../../api/auth/session.js';
import type { ApiDeps } from '../../../api/context.js';

/**
 * Verifies the message (domain `host`, nonce, signature), finds the linked trader, uses the nonce
 * once and opens a 24-hour session; answers its token (for the cookie) and its view.
 * @throws ApiError `400 siwe_message_invalid`, `401 siwe_domain_mismatch` (`expected`, `actual`),
 *   `401 siwe_nonce_invalid`, `401 siwe_signature_invalid`, `403 wallet_not_linked`.
 */
export async function signInWithEthereum(
  deps: ApiDeps,
  tenantId: string,
  host: string,
  body: { message: string; signature: string },
) {
  const walletAddress = await checkSiwe(deps.orm, { message: body.message, signature: body.signature, host, tenantId });
  const linked = await linkedTrader(deps.orm, tenantId, walletAddress);
  if (!linked) {
    throw new ApiError(
      'wallet_not_linked',
      `wallet ${walletAddress} is not linked to an account here: authorise an agent with this wallet as its owner first ` +
        '(POST /api/v1/accounts/{id}/agents, then sign its authorization), then sign in again',
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
