/**
 * Compose (docs/api.md §2.6, §4.4): checks the account, that the tenant offers the pair, where the order executes for the
 * account's execution mode (docs/api.md §1: an internalised account's order moves to the paper symbol of the same underlying,
 * so the workflow sees an ordinary paper intent; a routed account's stays on its exchange), the instrument, the leverage cap, the
 * challenge's risk profile, the credential's envelope and allowlists and (routed venues) the agent, then starts `intent-<intentId>` with an
 * update-with-start that answers once the intent is recorded (the early-return shape); dispatch and
 * fills follow on /ws/risk. Shared by `POST /oms/intents` and smart order routing (`/oms/route-intents`).
 */
import { ApiError } from '../../../domain/errors.js';
import { Decimal } from '../../../domain/decimal.js';
import { agentBlock } from '../../../domain/custody/agents.js';
import { findSymbol, type SymbolSpec } from '../../../domain/market/symbols.js';
import { isRouted, type ComposeIntent, type IntentView, type RoutedVenue } from '../../../domain/oms/intent.js';
import { executionModeOf, executionSymbol, type ExecutionMode } from '../../../domain/oms/execution.js';
import { newIntent, type IntentRecord } from '../../../domain/oms/new-intent.js';
import { riskLimitBreach, type RiskLimits } from '../../../domain/prop/risk.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, Position, TradingGroup, type AccountRow, type AgentWalletRow } from '../../../db/entities.js';
import { agentOfRow, currentAgentSql } from '../../../db/agent-wallets.js';
import { readMark } from '../../../db/marks.js';
import { scoped } from '../../../db/orm.js';
import { searchAttributes } from '../../../workflows/shared.definitions.js';
import { composeUpdate, intentWorkflowId } from '../workflows/intent.definitions.js';
import { intentWorkflow } from '../workflows/intent.js';
import { ownedBy, targetAccountId } from '../../../api/auth/ownership.js';
import { prefixed, selectList, sqlOf, withDates } from '../../../db/sql.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { updateWithStart } from './update-with-start.js';
import { selfSignedOrders, venueSigningFor } from './venue-signing.js';
import { checkCredentialEnvelope } from './credential-envelope.js';
import { assertPairEnabled } from '../../tenants/queries/entitlements.js';

/** Decimal places of a decimal string. */
const places = (v: string) => new Decimal(v).decimalPlaces();

/** An order's instrument and the sizes and prices checked against it. */
type OrderFields = Pick<ComposeIntent, 'venue' | 'symbol' | 'qty' | 'price' | 'triggerPrice' | 'stopLimitPrice'>;

/**
 * The spec of the symbol an order names. @throws ApiError `400 symbol_unknown` (a field issue on `body.symbol`).
 */
function namedSymbol(body: Pick<ComposeIntent, 'venue' | 'symbol'>): SymbolSpec {
  const spec = findSymbol(body.venue, body.symbol);
  if (!spec)
    throw new ApiError('symbol_unknown', [
      {
        path: 'body.symbol',
        message: `unknown symbol ${body.symbol}; see GET /api/v1/symbols/${body.venue}`,
        code: 'symbol_unknown',
      },
    ]);
  return spec;
}

/**
 * The instrument of an order, with the lot and tick checks a trader expects at compose, as field issues.
 * @throws ApiError `400 symbol_unknown`, `400 validation_failed` (`qty_precision`, `price_tick`).
 */
export function checkInstrument(body: OrderFields) {
  return checkSizes(namedSymbol(body), body);
}

/**
 * `spec`, once `body`'s size and prices fit its lot and tick.
 * @throws ApiError `400 validation_failed` (`qty_precision`, `price_tick`).
 */
function checkSizes(spec: SymbolSpec, body: OrderFields): SymbolSpec {
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
 * A routed venue needs an active, unexpired agent on the account (docs/api.md §1 custody, §7): `agent`, the account's
 * current agent on `venue` as {@link composeAccount} read it.
 * @throws ApiError `403 credential_missing_agent_wallet`, `agent_authorization_revoked`, `agent_authorization_expired`.
 */
function checkAgent(agent: AgentWalletRow | null, venue: string): AgentWalletRow {
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
 * {@link composeAccount}'s statement: the account and its challenge template's risk profile limits, if any, every
 * joined row in the account's tenant, as the tenant-scoped reads it replaces were; and the account's current agent on
 * venue `$3` (db/agent-wallets.ts `currentAgentSql`, columns prefixed `agent.`), none when `$3` is null.
 */
const COMPOSE_ACCOUNT = `select ${selectList(Object.keys(Account.meta.properties), 'a')},
    rp.id as "limits.id", rp.max_order_notional_usd as "limits.maxOrderNotionalUsd",
    rp.max_position_notional_usd as "limits.maxPositionNotionalUsd", agent.*
  from accounts a
  left join prop_accounts pa on pa.account_id = a.id and pa.tenant_id = a.tenant_id
  left join prop_templates pt on pt.id = pa.template_id and pt.tenant_id = a.tenant_id
  left join risk_profiles rp on rp.id = pt.risk_profile_id and rp.tenant_id = a.tenant_id
  left join lateral (${currentAgentSql('a.id', '$3::text', 'agent.')}) agent on $3::text is not null
  where a.id = $1 and a.tenant_id = $2`;

/**
 * The account an order is composed on (`given`, else the credential's active account), for a challenge account
 * whose template has a risk profile that profile's limits (USD; null: none), and, for an order naming a routed
 * `venue`, the account's current agent there (null: none): one statement (issue 15; it was two for any account, four
 * for a challenge account, and one more for the agent of a routed order).
 * @throws ApiError as {@link targetAccountId} and {@link ownedBy}: `400 validation_failed`, `404 account_not_found`, `403 forbidden`.
 */
async function composeAccount(
  em: EntityManager,
  caller: Caller,
  given: string | undefined,
  venue: string,
): Promise<{ account: AccountRow; limits: RiskLimits | null; agent: AgentWalletRow | null }> {
  const id = targetAccountId(caller, given);
  const [row] = await sqlOf(em).rows<Record<string, unknown>>(COMPOSE_ACCOUNT, [
    id,
    caller.tenantId,
    isRouted(venue) ? venue : null,
  ]);
  const limits = row ? prefixed<RiskLimits>(row, 'limits.', 'id') : null;
  const agent = row ? agentOfRow(row, 'agent.') : null;
  const account = row ? withDates(row as AccountRow, ['suspendedAt', 'createdAt']) : null;
  return { account: ownedBy(caller, account, id), limits, agent };
}

/**
 * Refuses an order of a challenge account that breaks its template's risk profile `limits`
 * (domain/prop/risk.ts); the mark and the position are read only when there are limits.
 * @throws ApiError `400 risk_limit_exceeded`.
 */
async function checkRiskProfile(
  deps: ApiDeps,
  em: EntityManager,
  limits: RiskLimits | null,
  accountId: string,
  body: ComposeIntent,
  symbol: string,
): Promise<void> {
  if (!limits) return;
  const price =
    body.type === 'stop_limit'
      ? body.stopLimitPrice
      : (body.price ?? (await readMark(em, body.venue, symbol, deps.config.markMaxAgeMs))?.mark.toFixed());
  if (!price) return; // no mark yet: dispatch refuses the order anyway
  const position = await em.findOne(Position, { accountId, venue: body.venue, symbol });
  const breach = riskLimitBreach(limits, {
    side: body.side,
    qty: String(body.qty),
    priceUsd: String(price),
    positionQty: position?.qty ?? '0',
    reduceOnly: body.reduceOnly,
  });
  if (breach) throw new ApiError('risk_limit_exceeded', breach);
}

/**
 * The order as it executes for an account in `mode` (docs/api.md §1): an internalised account's order on any
 * listed perp moves to the paper symbol of the same underlying; a routed account's stays where it names.
 * The instrument checks apply to the symbol it executes on. Answers the order and that symbol's spec.
 * @throws ApiError `400 symbol_unknown`, `400 account_routed`, `400 venue_not_internalised`,
 *   `400 validation_failed` (`qty_precision`, `price_tick`).
 */
function executedOrder(mode: ExecutionMode, body: ComposeIntent): { order: ComposeIntent; spec: SymbolSpec } {
  const spec = executionSymbol(mode, namedSymbol(body));
  const order = { ...body, venue: spec.venue as ComposeIntent['venue'], symbol: spec.symbol };
  return { order, spec: checkSizes(spec, order) };
}

/**
 * Composes an intent under `intentId` (module doc) and answers the recorded intent and the
 * workflow input it started with. The order executes as the account's mode decides ({@link executedOrder}):
 * the tenant's offer and the credential's allowlists apply to the venue and symbol it names, every other
 * check to where it executes.
 * @throws ApiError `403 venue_not_enabled`, `403 symbol_not_enabled` (the tenant's venues, docs/api.md §2.4),
 *   as {@link executedOrder}, the agent codes of docs/api.md §7, for a self-signing credential on a
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
  const em = scoped(deps.orm, caller.tenantId);
  const { account, limits, agent: agentThere } = await composeAccount(em, caller, body.accountId, body.venue);
  const accountId = account.id;
  if (account.suspendedAt)
    throw new ApiError(
      'account_suspended',
      `account ${accountId} is suspended: ${account.suspensionReason ?? 'by the operator'}`,
    );
  await assertPairEnabled(deps.auth, caller.tenantId, body.venue, body.symbol);
  const { order, spec } = executedOrder(executionModeOf(account.executionMode), body);
  const cap = await leverageCap(deps, caller, account.tradingGroupId, order.venue, spec.maxLeverage);
  if (order.leverage > cap)
    throw new ApiError('leverage_above_cap', `leverage ${order.leverage} is above the cap ${cap} for ${order.venue}`, {
      cap,
      requested: order.leverage,
    });
  await checkRiskProfile(deps, em, limits, accountId, order, spec.symbol);
  await checkCredentialEnvelope(deps, caller, accountId, order, { venue: body.venue, symbol: body.symbol });
  const routed = isRouted(order.venue);
  const signer = caller.signerAddress;
  if (routed && signer) selfSignedOrders(order.venue as RoutedVenue);
  // A routed order executes on the venue it names (executedOrder), whose agent composeAccount read.
  const agent = routed ? checkAgent(agentThere, order.venue) : null;

  const input = newIntent(
    {
      intentId,
      tenantId: caller.tenantId,
      accountId,
      credentialId: caller.credentialId,
      clientOrderId: order.clientOrderId,
      venue: order.venue,
      symbol: spec.symbol,
      side: order.side,
      type: order.type,
      qty: order.qty,
      price: order.price,
      triggerPrice: order.triggerPrice,
      stopLimitPrice: order.stopLimitPrice,
      reduceOnly: order.reduceOnly,
      timeInForce: order.timeInForce,
      leverage: String(order.leverage),
    },
    // A self-signing credential signs a routed order itself too: the venue's own request (docs/api.md §3.1).
    {
      signing: signer ? 'self' : 'platform',
      ...(routed ? { pollMs: deps.config.venues.pollMs } : {}),
      ...(agent && signer ? { venueSigning: await venueSigningFor(deps, agent, spec.symbol, signer) } : {}),
      ...(agent && !signer ? { agentId: agent.id } : {}),
    },
  );
  const view: IntentView = await updateWithStart(
    deps,
    composeUpdate,
    intentWorkflow,
    {
      workflowId: intentWorkflowId(intentId),
      args: [input],
      conflict: 'USE_EXISTING',
      searchAttributes: searchAttributes(
        input,
        input.signing === 'self' ? 'intent_pending' : 'signed_pending_dispatch',
      ),
    },
    new ApiError('invalid_state', `intent ${intentId} ended before it was recorded`),
  );
  return { view, input };
}
