/**
 * Compose (docs/api.md §2.6, §4.4): checks the account, that the tenant offers the pair, the instrument, the leverage cap, the
 * challenge's risk profile, the credential's envelope and allowlists and (routed venues) the agent, then starts `intent-<intentId>` with an
 * update-with-start that answers once the intent is recorded (the early-return shape); dispatch and
 * fills follow on /ws/risk. Shared by `POST /oms/intents` and smart order routing (`/oms/route-intents`).
 */
import { WithStartWorkflowOperation } from '@temporalio/client';
import { ApiError } from '../../../domain/errors.js';
import { Decimal } from '../../../domain/decimal.js';
import { agentBlock } from '../../../domain/custody/agents.js';
import { findSymbol } from '../../../domain/market/symbols.js';
import { isRouted, type ComposeIntent, type IntentView, type RoutedVenue } from '../../../domain/oms/intent.js';
import { newIntent, type IntentRecord } from '../../../domain/oms/new-intent.js';
import { riskLimitBreach } from '../../../domain/prop/risk.js';
import {
  Position,
  PropAccount,
  PropTemplate,
  RiskProfile,
  TradingGroup,
  type AgentWalletRow,
} from '../../../db/entities.js';
import { currentAgent } from '../../../db/agent-wallets.js';
import { readMark } from '../../../db/marks.js';
import { scoped } from '../../../db/orm.js';
import { searchAttributes } from '../../../workflows/shared.definitions.js';
import { composeUpdate, intentWorkflowId } from '../workflows/intent.definitions.js';
import { intentWorkflow } from '../workflows/intent.js';
import { targetAccount } from '../../../api/auth/ownership.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { viaWorkflow } from '../../../api/temporal-errors.js';
import { selfSignedOrders, venueSigningFor } from './venue-signing.js';
import { checkCredentialEnvelope } from './credential-envelope.js';
import { assertPairEnabled } from '../../tenants/queries/entitlements.js';

/** Decimal places of a decimal string. */
const places = (v: string) => new Decimal(v).decimalPlaces();

/**
 * The instrument of an order, with the lot and tick checks a trader expects at compose, as field issues.
 * @throws ApiError `400 symbol_unknown`, `400 validation_failed` (`qty_precision`, `price_tick`).
 */
export function checkInstrument(
  body: Pick<ComposeIntent, 'venue' | 'symbol' | 'qty' | 'price' | 'triggerPrice' | 'stopLimitPrice'>,
) {
  const spec = findSymbol(body.venue, body.symbol);
  if (!spec)
    throw new ApiError('symbol_unknown', [
      {
        path: 'body.symbol',
        message: `unknown symbol ${body.symbol}; see GET /api/v1/symbols/${body.venue}`,
        code: 'symbol_unknown',
      },
    ]);
  const issues = [];
  if (places(body.qty) > spec.szDecimals)
    issues.push({
      path: 'body.qty',
      message: `${spec.symbol} sizes have at most ${spec.szDecimals} decimals`,
      code: 'qty_precision',
    });
  for (const field of ['price', 'triggerPrice', 'stopLimitPrice'] as const) {
    const v = body[field];
    if (v !== undefined && !new Decimal(v).mod(spec.tickSize).isZero())
      issues.push({
        path: `body.${field}`,
        message: `${spec.symbol} prices are multiples of ${spec.tickSize}`,
        code: 'price_tick',
      });
  }
  if (issues.length) throw new ApiError('validation_failed', issues);
  return spec;
}

/** What a trader reads for each agent refusal at compose (docs/api.md §7). */
const AGENT_BLOCK_DETAIL = {
  credential_missing_agent_wallet: (venue: string) =>
    `no authorised agent for ${venue} on this account: POST /api/v1/accounts/{id}/agents, then have your wallet sign its authorization`,
  agent_authorization_revoked: (venue: string) =>
    `the ${venue} agent of this account was revoked: create and authorise a new one`,
  agent_authorization_expired: (venue: string) =>
    `the ${venue} agent's authorisation expired: create and authorise a new one`,
} as const;

/**
 * A routed venue needs an active, unexpired agent on the account (docs/api.md §1 custody, §7).
 * @throws ApiError `403 credential_missing_agent_wallet`, `agent_authorization_revoked`, `agent_authorization_expired`.
 */
async function checkAgent(deps: ApiDeps, accountId: string, venue: string): Promise<AgentWalletRow> {
  const agent = await currentAgent(deps.orm, accountId, venue);
  const block = agentBlock(agent);
  if (block) throw new ApiError(block, AGENT_BLOCK_DETAIL[block](venue));
  return agent!;
}

/** The leverage cap of the account's trading group for this venue, else the symbol's maximum. */
async function leverageCap(
  deps: ApiDeps,
  caller: Caller,
  tradingGroupId: string | null | undefined,
  venue: string,
  symbolMax: number,
): Promise<number> {
  if (!tradingGroupId) return symbolMax;
  const group = await scoped(deps.orm, caller.tenantId).findOne(TradingGroup, { id: tradingGroupId });
  return Math.min(group?.leverageCaps[venue] ?? symbolMax, symbolMax);
}

/**
 * Refuses an order of a challenge account that breaks its template's risk profile
 * (domain/prop/risk.ts). @throws ApiError `400 risk_limit_exceeded`.
 */
async function checkRiskProfile(
  deps: ApiDeps,
  caller: Caller,
  accountId: string,
  body: ComposeIntent,
  symbol: string,
): Promise<void> {
  const em = scoped(deps.orm, caller.tenantId);
  const pa = await em.findOne(PropAccount, { accountId });
  const template = pa && (await em.findOne(PropTemplate, { id: pa.templateId }));
  const profile = template?.riskProfileId ? await em.findOne(RiskProfile, { id: template.riskProfileId }) : null;
  if (!profile) return;
  const price =
    body.type === 'stop_limit'
      ? body.stopLimitPrice
      : (body.price ?? (await readMark(em, body.venue, symbol, deps.config.markMaxAgeMs))?.mark.toFixed());
  if (!price) return; // no mark yet: dispatch refuses the order anyway
  const position = await em.findOne(Position, { accountId, venue: body.venue, symbol });
  const breach = riskLimitBreach(profile, {
    side: body.side,
    qty: String(body.qty),
    priceUsd: String(price),
    positionQty: position?.qty ?? '0',
    reduceOnly: body.reduceOnly,
  });
  if (breach) throw new ApiError('risk_limit_exceeded', breach);
}

/**
 * Composes an intent under `intentId` (module doc) and answers the recorded intent and the
 * workflow input it started with.
 * @throws ApiError `403 venue_not_enabled`, `403 symbol_not_enabled` (the tenant's venues, docs/api.md §2.4),
 *   as {@link checkInstrument}, the agent codes of docs/api.md §7, for a self-signing credential on a
 *   routed venue those of {@link venueSigningFor} (`400 self_signing_unsupported`, `403 signer_not_venue_owner`,
 *   `400 no_quotes`), `400 leverage_above_cap`,
 *   `400 risk_limit_exceeded`, the credential's envelope and allowlist codes (checkCredentialEnvelope), `403 account_suspended`, `404 account_not_found`, `403 forbidden`,
 *   `503 service_unavailable` (no workflow answer).
 */
export async function composeIntent(
  deps: ApiDeps,
  caller: Caller,
  body: ComposeIntent,
  intentId: string,
): Promise<{ view: IntentView; input: IntentRecord }> {
  const account = await targetAccount(scoped(deps.orm, caller.tenantId), caller, body.accountId);
  const accountId = account.id;
  if (account.suspendedAt)
    throw new ApiError(
      'account_suspended',
      `account ${accountId} is suspended: ${account.suspensionReason ?? 'by the operator'}`,
    );
  await assertPairEnabled(deps.auth, caller.tenantId, body.venue, body.symbol);
  const spec = checkInstrument(body);
  const cap = await leverageCap(deps, caller, account.tradingGroupId, body.venue, spec.maxLeverage);
  if (body.leverage > cap)
    throw new ApiError('leverage_above_cap', `leverage ${body.leverage} is above the cap ${cap} for ${body.venue}`, {
      cap,
      requested: body.leverage,
    });
  await checkRiskProfile(deps, caller, accountId, body, spec.symbol);
  await checkCredentialEnvelope(deps, caller, accountId, body, spec.symbol);
  const routed = isRouted(body.venue);
  const signer = caller.signerAddress;
  if (routed && signer) selfSignedOrders(body.venue as RoutedVenue);
  const agent = routed ? await checkAgent(deps, accountId, body.venue) : null;

  const input = newIntent(
    {
      intentId,
      tenantId: caller.tenantId,
      accountId,
      credentialId: caller.credentialId,
      clientOrderId: body.clientOrderId,
      venue: body.venue,
      symbol: spec.symbol,
      side: body.side,
      type: body.type,
      qty: body.qty,
      price: body.price,
      triggerPrice: body.triggerPrice,
      stopLimitPrice: body.stopLimitPrice,
      reduceOnly: body.reduceOnly,
      timeInForce: body.timeInForce,
      leverage: String(body.leverage),
    },
    // A self-signing credential signs a routed order itself too: the venue's own request (docs/api.md §3.1).
    {
      signing: signer ? 'self' : 'platform',
      ...(routed ? { pollMs: deps.config.venues.pollMs } : {}),
      ...(agent && signer ? { venueSigning: await venueSigningFor(deps, agent, spec.symbol, signer) } : {}),
    },
  );
  const view: IntentView = await viaWorkflow(
    () =>
      deps.temporal.workflow.executeUpdateWithStart(composeUpdate, {
        startWorkflowOperation: new WithStartWorkflowOperation(intentWorkflow, {
          workflowId: intentWorkflowId(intentId),
          taskQueue: deps.config.temporal.taskQueue,
          args: [input],
          workflowIdConflictPolicy: 'USE_EXISTING',
          typedSearchAttributes: searchAttributes(
            input,
            input.signing === 'self' ? 'intent_pending' : 'signed_pending_dispatch',
          ),
        }),
      }),
    new ApiError('invalid_state', `intent ${intentId} ended before it was recorded`),
  );
  return { view, input };
}
