/**
 * Self-signed intents on routed venues (docs/api.md §3.1): at compose, whether the venue takes an
 * order signed by the credential's own key and what that order is signed with (the owner's account
 * on the venue, the signer, a nonce from the agent's sequence, the mark now); and the signing request
 * compose answers, read from the recorded intent so a retried compose answers what was first recorded.
 */
import { ApiError } from '../../../domain/errors.js';
import { fmt } from '../../../domain/decimal.js';
import type { RoutedVenue } from '../../../domain/oms/intent.js';
import type { IntentRecord } from '../../../domain/oms/new-intent.js';
import type { VenueSigning } from '../../../domain/oms/signing.js';
import { nextAgentNonce } from '../../../db/agent-nonces.js';
import { OrderIntent, type AgentWalletRow } from '../../../db/entities.js';
import { readMark } from '../../../db/marks.js';
import { platformEm, scoped } from '../../../db/orm.js';
import { ADAPTERS, NONCE_UNIT } from '../../../venues/registry.js';
import { signingRequestOf } from '../../../venues/self-signed.js';
import type { SelfSignedOrders } from '../../../venues/types.js';
import type { ApiDeps, Caller } from '../../../api/context.js';

/** Why a venue takes no order signed by the credential's own key (docs/api.md §3.1). */
const NOT_SELF_SIGNABLE: Partial<Record<RoutedVenue, string>> = {
  kalshi:
    'Kalshi authenticates each request with an RSA API key over its timestamp, method and path (not the order), which an EVM signer cannot produce: use a credential without a signer address (the agent signs)',
  polymarket:
    "Polymarket takes an order only from the API key of the order's signer (HMAC headers under a secret that a ClobAuth signature of that wallet creates, not EIP-712 over the order); the platform holds such a key for the agent only: use a credential without a signer address (the agent signs)",
};

/**
 * The venue's self-signed orders. @throws ApiError `400 self_signing_unsupported` when the venue takes
 * none (Kalshi, Polymarket: {@link NOT_SELF_SIGNABLE}).
 */
export function selfSignedOrders(venue: RoutedVenue): SelfSignedOrders {
  const self = ADAPTERS[venue].selfSigned;
  if (!self)
    throw new ApiError('self_signing_unsupported', NOT_SELF_SIGNABLE[venue] ?? `${venue} takes no self-signed order`);
  return self;
}

/**
 * What a self-signed intent on `agent`'s venue is signed with: the agent's `owner`, `signer` (the
 * credential's), the next nonce of the agent's sequence (the venue's unit) and the latest mark of `symbol`.
 * @throws ApiError `400 self_signing_unsupported`; `403 signer_not_venue_owner` when the venue applies a
 *   signed order to the signer's own account (Hyperliquid) and `signer` is not the owner's wallet;
 *   `400 no_quotes` when `symbol` has no mark yet.
 */
export async function venueSigningFor(
  deps: ApiDeps,
  agent: AgentWalletRow,
  symbol: string,
  signer: string,
): Promise<VenueSigning> {
  const venue = agent.venue as RoutedVenue;
  if (selfSignedOrders(venue).signer === 'owner' && signer.toLowerCase() !== agent.owner.toLowerCase())
    throw new ApiError(
      'signer_not_venue_owner',
      `${venue} applies a signed order to the signer's own account: only the account owner's wallet ${agent.owner} may sign its orders`,
    );
  const tick = await readMark(platformEm(deps.orm), venue, symbol, Number.MAX_SAFE_INTEGER);
  if (!tick) throw new ApiError('no_quotes', `no mark for ${symbol} yet: a self-signed order is priced against it`);
  const nonce = await nextAgentNonce(platformEm(deps.orm), agent.id, NONCE_UNIT[venue]);
  return { owner: agent.owner, signer, nonce: nonce.toString(), markPrice: fmt(tick.mark) };
}

/**
 * The signing request compose answers for a self-signed intent (`{ kind: 'eip712', typedData }`):
 * on a routed venue from the intent as recorded (a compose retried under the same intent id answers
 * the nonce first recorded), else the paper typed data of `input`.
 */
export async function composedSigningRequest(deps: ApiDeps, caller: Caller, input: IntentRecord) {
  const recorded = input.venueSigning
    ? await scoped(deps.orm, caller.tenantId).findOneOrFail(OrderIntent, { id: input.intentId })
    : null;
  return signingRequestOf({ ...input, venueSigning: recorded?.venueSigning }, deps.config.venues.network);
}
