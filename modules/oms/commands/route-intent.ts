/**
 * Smart order routing, `POST /api/v1/oms/route-intents` (docs/api.md §4.4 route-intents, §2.11 decision):
 * for each of hyperliquid, aster, polymarket the tenant enables read the asset's symbol, the account's agent and a fresh
 * quote — for an internalised account, where the platform engine would fill it instead (docs/api.md §1);
 * domain/sor/decide.ts decides (cost model in domain/sor/cost.ts); the order is composed on
 * the selected venue through {@link composeIntent} (every compose check, agent included; an internalised
 * account's order executes on paper there) and the
 * decision is stored in `sor_decisions`. A compose refusal answers as on `/oms/intents` and stores nothing.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../../../domain/errors.js';
import { Decimal } from '../../../domain/decimal.js';
import { agentBlock } from '../../../domain/custody/agents.js';
import { paperTwin, VENUE_SYMBOLS } from '../../../domain/market/symbols.js';
import { executionModeOf, type ExecutionMode } from '../../../domain/oms/execution.js';
import { Tenant } from '../../../db/entities.js';
import { SOR_VENUES } from '../../../domain/sor/cost.js';
import { enabledSymbols, flagRefusal, venueEnabled, type TenantVenues } from '../../../domain/tenant/entitlements.js';
import { bps4, decide, listAsset, px8, usd6, type RoutingError, type VenueInput } from '../../../domain/sor/decide.js';
import { currentAgent } from '../../../db/agent-wallets.js';
import { readMark } from '../../../db/marks.js';
import { platformEm, scoped } from '../../../db/orm.js';
import { targetAccount } from '../../../api/auth/ownership.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { toDecisionView, type DecisionRow } from '../presenters/sor.js';
import { composeIntent } from './compose.js';

/** What a trader reads for each routing error (docs/api.md §7.2). */
const ROUTING_ERROR_DETAIL: Record<RoutingError, (asset: string) => string> = {
  asset_unknown: (asset) =>
    `no candidate venue (${SOR_VENUES.join(', ')}) lists ${asset}; see GET /api/v1/symbols/{venue}`,
  no_quotes: (asset) => `no venue that lists ${asset} has a fresh quote right now; retry shortly`,
  no_eligible_venue: (asset) => `no venue can take this ${asset} order now: see each candidate's reason`,
};

/**
 * Reads what the decision needs per candidate venue the tenant offers (`venues`, docs/api.md §2.4: a venue
 * it does not enable is no candidate, a symbol outside its list is not listed): listing, agent, fresh quote.
 * An internalised account's candidates are all internalised (docs/api.md §1): each is read where the
 * platform engine would fill it, the paper twin of the listed symbol (its fresh quote) at `paperTakerFeeBps`
 * (the tenant's), and needs no agent; `paperTakerFeeBps` is null exactly for a routed account.
 */
async function readCandidates(
  orm: MikroORM,
  venues: TenantVenues,
  accountId: string,
  asset: string,
  maxAgeMs: number,
  paperTakerFeeBps: Decimal | null,
): Promise<VenueInput[]> {
  return Promise.all(
    SOR_VENUES.filter((venue) => venueEnabled(venues, venue)).map(async (venue): Promise<VenueInput> => {
      const listing = listAsset(asset, enabledSymbols(venues, venue, VENUE_SYMBOLS[venue] ?? []));
      if ('reason' in listing) return { venue, listing, agentActive: false, quote: null };
      if (paperTakerFeeBps) {
        const twin = paperTwin(listing.spec);
        const internalised = twin ? { spec: twin, takerFeeBps: paperTakerFeeBps } : null;
        const quote = twin ? await readMark(platformEm(orm), 'paper', twin.symbol, maxAgeMs) : null;
        return { venue, listing, agentActive: false, quote, internalised };
      }
      const [agent, quote] = await Promise.all([
        currentAgent(platformEm(orm), accountId, venue),
        readMark(platformEm(orm), venue, listing.spec.symbol, maxAgeMs),
      ]);
      return { venue, listing, agentActive: agentBlock(agent) === null, quote };
    }),
  );
}

/** The taker fee the platform engine charges an internalised account of the caller's tenant (bps), null for a routed account. */
async function paperTakerFee(deps: ApiDeps, caller: Caller, mode: ExecutionMode): Promise<Decimal | null> {
  if (mode === 'routed') return null;
  const tenant = await scoped(deps.orm, caller.tenantId).findOneOrFail(Tenant, { id: caller.tenantId });
  return new Decimal(tenant.feeSchedule.takerBps);
}

/** A routed market order of a bare asset (route-intents.schemas.ts `routeIntentBody`). */
export interface RouteRequest {
  asset: string;
  side: 'buy' | 'sell';
  qty: string;
  reduceOnly: boolean;
  leverage: number;
  clientId?: string;
  /** Quotes older than this are not fresh (ms); capped by `MARK_MAX_AGE_MS`. */
  validForMs?: number;
}

/**
 * Routes the order to the cheapest eligible venue of the caller's active account and composes it
 * there as `intentId`; answers the decision as stored (a retry with the same `Idempotency-Key`
 * reaches the same intent and answers the decision first stored for it).
 * @throws ApiError `403 feature_disabled` (the tenant's flag `smartRouting` off, docs/api.md §2.4),
 *   `400 routing_disabled` (account setting `smartRouting` off), `400 asset_unknown |
 *   no_quotes | no_eligible_venue` with `candidates`, and every error of {@link composeIntent}.
 */
export async function routeIntent(deps: ApiDeps, caller: Caller, body: RouteRequest, intentId: string) {
  const rules = await deps.auth.tenantRules(caller.tenantId);
  const off = flagRefusal(rules.flags, 'smartRouting');
  if (off) throw off;
  const account = await targetAccount(scoped(deps.orm, caller.tenantId), caller, undefined);
  if (account.settings?.smartRouting !== true) {
    const enable = `PATCH /api/v1/accounts/${account.id} {"settings":{"smartRouting":true}}`;
    throw new ApiError('routing_disabled', `smart routing is off for account ${account.id}: turn it on with ${enable}`);
  }
  const maxAgeMs = Math.min(deps.config.markMaxAgeMs, body.validForMs ?? Number.POSITIVE_INFINITY);
  const qty = new Decimal(body.qty);
  const decision = decide(
    { side: body.side, qty, leverage: body.leverage },
    await readCandidates(
      deps.orm,
      rules.venues,
      account.id,
      body.asset,
      maxAgeMs,
      await paperTakerFee(deps, caller, executionModeOf(account.executionMode)),
    ),
  );
  if (!decision.ok)
    throw new ApiError(decision.error, ROUTING_ERROR_DETAIL[decision.error](body.asset), {
      candidates: decision.candidates,
    });

  const { selected, nextBest } = decision;
  await composeIntent(
    deps,
    caller,
    {
      venue: selected.venue,
      symbol: selected.symbol,
      side: body.side,
      type: 'market',
      qty: body.qty,
      reduceOnly: body.reduceOnly,
      timeInForce: 'Ioc',
      leverage: body.leverage,
      accountId: account.id,
      ...(body.clientId ? { clientId: body.clientId } : {}),
    },
    intentId,
  );
  const e = selected.estimate;
  const conn = platformEm(deps.orm).getConnection();
  await conn.execute(
    `insert into sor_decisions (id, tenant_id, account_id, intent_id, asset, side, qty, selected_venue, selected_symbol, candidates, eligible_count,
       estimated_cost_usd, estimated_cost_bps, selected_all_in_price, mark, next_best_venue, next_best_cost_usd, next_best_cost_bps, next_best_all_in_price, savings_usd, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (intent_id) do nothing`,
    [
      `sor_${intentId.replace(/^int_/, '')}`,
      caller.tenantId,
      account.id,
      intentId,
      body.asset.toUpperCase(),
      body.side,
      body.qty,
      selected.venue,
      selected.symbol,
      JSON.stringify(decision.candidates),
      decision.eligibleCount,
      usd6(e.totalCostUsd),
      bps4(e.totalCostBps),
      px8(e.allInPrice),
      px8(selected.mark),
      nextBest?.venue ?? null,
      nextBest ? usd6(nextBest.estimate.totalCostUsd) : null,
      nextBest ? bps4(nextBest.estimate.totalCostBps) : null,
      nextBest ? px8(nextBest.estimate.allInPrice) : null,
      decision.savingsUsd ? usd6(decision.savingsUsd) : null,
      new Date(),
    ],
  );
  const [row] = await conn.execute<DecisionRow[]>(`select * from sor_decisions where intent_id = ? and tenant_id = ?`, [
    intentId,
    caller.tenantId,
  ]);
  return { intentId, decision: toDecisionView(row) };
}
