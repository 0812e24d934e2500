/**
 * Smart order routing (docs/api.md §4.4 route-intents, §4.5 audit, §2.11 decision).
 *
 * - `POST /api/v1/oms/route-intents` `{ asset, side, qty, type: 'market', reduceOnly?, leverage?, clientId?, validForMs? }`
 *   → `201 { intentId, decision }`. Only a wallet-linked cookie session (docs/api.md §5.1) may call it: a
 *   bearer credential has no wallet (`403 wallet_session_required`). Tier `fullTrading`; honours
 *   `Idempotency-Key` (the intent id derives from the session and the key, like `/oms/intents`).
 *   `400 routing_disabled` unless the account's `settings.smartRouting` is `true` (set it with
 *   `PATCH /api/v1/accounts/{id}`). For each of hyperliquid, aster, polymarket the route reads the
 *   asset's symbol, the account's agent and a fresh quote; domain/sor/decide.ts decides (cost model in
 *   domain/sor/cost.ts). Nothing eligible: `400 asset_unknown | no_quotes | no_eligible_venue` with
 *   `candidates`. Otherwise the order is composed on the selected venue through `composeIntent`
 *   (every compose check, agent included) and the decision is stored in `sor_decisions`; a compose
 *   refusal (e.g. `400 leverage_above_cap` from the trading group) answers as on `/oms/intents` and stores nothing.
 * - `GET /api/v1/sor/decisions` → `{ data, nextCursor, hasMore }`, newest first, the decisions of
 *   every account the caller owns (cookie or bearer); `limit` default 100, cap 500.
 * - `GET /api/v1/sor/decisions/summary?from&to` → realised savings over the window (sor.schemas.ts
 *   `summaryView` documents each figure).
 */
import Router from '@koa/router';
import { createHash, randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors.js';
import { Decimal, ZERO, fmt } from '../../domain/decimal.js';
import { VENUE_SYMBOLS } from '../../domain/market/symbols.js';
import { decodeCursor, toPage } from '../../domain/pagination.js';
import { SOR_VENUES, type SorVenue } from '../../domain/sor/cost.js';
import { bps4, decide, listAsset, px8, realisedSavings, usd6, type CandidateView, type RoutingError, type VenueInput } from '../../domain/sor/decide.js';
import { platformEm, scoped } from '../../db/orm.js';
import { readMark } from '../../activities/market/marks.js';
import { agentBlock, currentAgent } from '../../activities/venues/routed.js';
import { callerOf, gate } from '../middleware/auth.js';
import { idempotency } from '../middleware/idempotency.js';
import { IDEMPOTENCY_HEADER } from '../middleware/oms-write.js';
import type { ApiContext, ApiDeps, ApiMiddleware, ApiState, Caller } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { targetAccount } from './accounts.js';
import { composeIntent } from './oms.js';
import { decisionsPage, decisionsQuery, routeIntentBody, routeIntentResponse, routingErrorView, summaryQuery, summaryView } from './sor.schemas.js';

/** What a trader reads for each routing error (docs/api.md §7.2). */
const ROUTING_ERROR_DETAIL: Record<RoutingError, (asset: string) => string> = {
  asset_unknown: (asset) => `no candidate venue (${SOR_VENUES.join(', ')}) lists ${asset}; see GET /api/v1/symbols/{venue}`,
  no_quotes: (asset) => `no venue that lists ${asset} has a fresh quote right now; retry shortly`,
  no_eligible_venue: (asset) => `no venue can take this ${asset} order now: see each candidate's reason`,
};

/** Default summary window: 30 days (ms). */
const SUMMARY_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

/** A stored decision row (`sor_decisions`); numerics arrive as strings. */
interface DecisionRow {
  id: string;
  account_id: string;
  intent_id: string;
  asset: string;
  side: 'buy' | 'sell';
  qty: string;
  selected_venue: SorVenue;
  selected_symbol: string;
  candidates: CandidateView[];
  eligible_count: number;
  estimated_cost_usd: string;
  estimated_cost_bps: string;
  selected_all_in_price: string;
  mark: string;
  next_best_venue: SorVenue | null;
  next_best_cost_usd: string | null;
  next_best_cost_bps: string | null;
  next_best_all_in_price: string | null;
  savings_usd: string | null;
  created_at: Date;
}

const canon = (v: string) => fmt(new Decimal(v));

/** The API view of a stored decision (sor.schemas.ts `decisionView`). */
function toDecisionView(r: DecisionRow) {
  return {
    decisionId: r.id,
    intentId: r.intent_id,
    accountId: r.account_id,
    asset: r.asset,
    side: r.side,
    qty: canon(r.qty),
    selectedVenue: r.selected_venue,
    selectedSymbol: r.selected_symbol,
    mark: canon(r.mark),
    estimatedCostUsd: canon(r.estimated_cost_usd),
    estimatedCostBps: canon(r.estimated_cost_bps),
    estimatedAllInPrice: canon(r.selected_all_in_price),
    nextBest:
      r.next_best_venue && r.next_best_cost_usd && r.next_best_cost_bps && r.next_best_all_in_price
        ? { venue: r.next_best_venue, estimatedCostUsd: canon(r.next_best_cost_usd), estimatedCostBps: canon(r.next_best_cost_bps), allInPrice: canon(r.next_best_all_in_price) }
        : null,
    savingsVsNextBestUsd: r.savings_usd == null ? null : canon(r.savings_usd),
    candidates: r.candidates,
    decidedAt: new Date(r.created_at).toISOString(),
  };
}

/** The intent id of a routed order: derived from the session and its `Idempotency-Key` (retries reach the same intent), else random. */
function routeIntentId(ctx: ApiContext, credentialId: string): string {
  const key = ctx.get('idempotency-key');
  if (!key) return `int_${randomBytes(10).toString('hex')}`;
  return `int_${createHash('sha256').update(`${credentialId}\n${ctx.path}\n${key}`).digest('hex').slice(0, 20)}`;
}

/** Reads what the decision needs per candidate venue: listing, agent, fresh quote. */
async function readCandidates(orm: MikroORM, accountId: string, asset: string, maxAgeMs: number): Promise<VenueInput[]> {
  return Promise.all(
    SOR_VENUES.map(async (venue): Promise<VenueInput> => {
      const listing = listAsset(asset, VENUE_SYMBOLS[venue] ?? []);
      if ('reason' in listing) return { venue, listing, agentActive: false, quote: null };
      const [agent, quote] = await Promise.all([currentAgent(orm, accountId, venue), readMark(platformEm(orm), venue, listing.spec.symbol, maxAgeMs)]);
      return { venue, listing, agentActive: agentBlock(agent) === null, quote };
    }),
  );
}

/** Only a wallet-linked cookie session routes (docs/api.md §4.4). @throws ApiError `403 wallet_session_required`. */
const walletSession: ApiMiddleware = async (ctx, next) => {
  if (!callerOf(ctx).session) {
    throw new ApiError('wallet_session_required', 'smart routing needs a wallet-linked browser session (POST /api/auth/siwe/verify); a bearer API credential has no wallet: compose with an explicit venue on POST /api/v1/oms/intents');
  }
  await next();
};

export function sorRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  const conn = () => platformEm(deps.orm).getConnection();
  const traderGate = gate({ audience: 'trader', tier: 'fullTrading', write: true });
  const routeGate: ApiMiddleware = (ctx, next) => traderGate(ctx, () => walletSession(ctx, next));

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/oms/route-intents',
      summary: 'Route a market order of a bare asset to the cheapest eligible venue (hyperliquid, aster, polymarket) and compose it there',
      tags: ['oms', 'sor'],
      gate: routeGate,
      schemas: { body: routeIntentBody },
      use: [idempotency(deps.orm)],
      headers: IDEMPOTENCY_HEADER,
      requires: 'fullTrading, wallet-linked cookie session (bearer: 403 wallet_session_required)',
      responses: {
        '201': { description: 'Composed on the selected venue; the decision as stored', schema: routeIntentResponse, headers: { 'Idempotency-Replay': '`true` on a replayed response' } },
        '400': { description: '`routing_disabled` (account setting smartRouting off); `asset_unknown`, `no_quotes`, `no_eligible_venue` with `candidates`; `validation_failed`', schema: routingErrorView },
      },
    },
    async (ctx, { body }) => {
      const caller = callerOf(ctx);
      const account = await targetAccount(scoped(deps.orm, caller.tenantId), caller, undefined);
      if (account.settings?.smartRouting !== true) {
        throw new ApiError('routing_disabled', `smart routing is off for account ${account.id}: turn it on with PATCH /api/v1/accounts/${account.id} {"settings":{"smartRouting":true}}`);
      }
      const maxAgeMs = Math.min(deps.config.markMaxAgeMs, body.validForMs ?? Number.POSITIVE_INFINITY);
      const qty = new Decimal(body.qty);
      const decision = decide({ side: body.side, qty, leverage: body.leverage }, await readCandidates(deps.orm, account.id, body.asset, maxAgeMs));
      if (!decision.ok) throw new ApiError(decision.error, ROUTING_ERROR_DETAIL[decision.error](body.asset), { candidates: decision.candidates });

      const { selected, nextBest } = decision;
      const intentId = routeIntentId(ctx, caller.credentialId);
      await composeIntent(
        deps,
        caller,
        { venue: selected.venue, symbol: selected.symbol, side: body.side, type: 'market', qty: body.qty, reduceOnly: body.reduceOnly, timeInForce: 'Ioc', leverage: body.leverage, accountId: account.id, ...(body.clientId ? { clientId: body.clientId } : {}) },
        intentId,
      );
      const e = selected.estimate;
      await conn().execute(
        `insert into sor_decisions (id, tenant_id, account_id, intent_id, asset, side, qty, selected_venue, selected_symbol, candidates, eligible_count,
           estimated_cost_usd, estimated_cost_bps, selected_all_in_price, mark, next_best_venue, next_best_cost_usd, next_best_cost_bps, next_best_all_in_price, savings_usd, created_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (intent_id) do nothing`,
        [
          `sor_${intentId.replace(/^int_/, '')}`, caller.tenantId, account.id, intentId, body.asset.toUpperCase(), body.side, body.qty, selected.venue, selected.symbol,
          JSON.stringify(decision.candidates), decision.eligibleCount, usd6(e.totalCostUsd), bps4(e.totalCostBps), px8(e.allInPrice), px8(selected.mark),
          nextBest?.venue ?? null, nextBest ? usd6(nextBest.estimate.totalCostUsd) : null, nextBest ? bps4(nextBest.estimate.totalCostBps) : null, nextBest ? px8(nextBest.estimate.allInPrice) : null,
          decision.savingsUsd ? usd6(decision.savingsUsd) : null, new Date(),
        ],
      );
      // A retry with the same Idempotency-Key reaches the same intent: answer the decision first stored for it.
      const [row] = await conn().execute<DecisionRow[]>(`select * from sor_decisions where intent_id = ? and tenant_id = ?`, [intentId, caller.tenantId]);
      ctx.status = 201;
      ctx.body = { intentId, decision: toDecisionView(row) };
    },
  );

  /** SQL condition: decisions of the accounts the caller owns, in its tenant. */
  const owned = (caller: Caller) => ({ sql: `d.tenant_id = ? and d.account_id in (select id from accounts where tenant_id = ? and owner_id = ?)`, args: [caller.tenantId, caller.tenantId, caller.ownerId] });

  endpoint(
    router,
    openapi,
    { method: 'get', path: '/sor/decisions', summary: 'Smart-routing decision history of the accounts you own, newest first', tags: ['sor'], gate: gate({ audience: 'trader' }), schemas: { query: decisionsQuery }, responses: { '200': { description: 'A page of decisions', schema: decisionsPage } } },
    async (ctx, { query }) => {
      const where = owned(callerOf(ctx));
      const args: unknown[] = [...where.args];
      let after = '';
      if (query.cursor) {
        const c = decodeCursor(query.cursor);
        after = ` and (d.created_at < ? or (d.created_at = ? and d.id < ?))`;
        args.push(new Date(c.at), new Date(c.at), c.id);
      }
      const rows = await conn().execute<DecisionRow[]>(`select d.* from sor_decisions d where ${where.sql}${after} order by d.created_at desc, d.id desc limit ${query.limit + 1}`, args);
      const page = toPage(rows, query.limit, (r) => ({ at: new Date(r.created_at).toISOString(), id: r.id }));
      ctx.body = { data: page.items.map(toDecisionView), nextCursor: page.nextCursor, hasMore: page.nextCursor !== null };
    },
  );

  endpoint(
    router,
    openapi,
    { method: 'get', path: '/sor/decisions/summary', summary: 'Realised savings of smart routing over a window (default the last 30 days)', tags: ['sor'], gate: gate({ audience: 'trader' }), schemas: { query: summaryQuery }, responses: { '200': { description: 'The rollup', schema: summaryView } } },
    async (ctx, { query }) => {
      const to = query.to ? new Date(query.to) : new Date();
      const from = query.from ? new Date(query.from) : new Date(to.getTime() - SUMMARY_WINDOW_MS);
      if (from >= to) throw new ApiError('validation_failed', [{ path: 'query.from', message: '`from` must be before `to`', code: 'window' }]);
      const where = owned(callerOf(ctx));
      const rows = await conn().execute<{ selected_venue: SorVenue; side: 'buy' | 'sell'; eligible_count: number; savings_usd: string | null; next_best_all_in_price: string | null; filled_qty: string | null; avg_fill_price: string | null; fees: string }[]>(
        `select d.selected_venue, d.side, d.eligible_count, d.savings_usd, d.next_best_all_in_price, i.filled_qty, i.avg_fill_price, f.fees
           from sor_decisions d
           left join order_intents i on i.id = d.intent_id and i.tenant_id = d.tenant_id
           left join lateral (select coalesce(sum(x.fee_usd), 0) as fees from fills x where x.intent_id = d.intent_id and x.tenant_id = d.tenant_id) f on true
          where ${where.sql} and d.created_at >= ? and d.created_at < ?`,
        [...where.args, from, to],
      );
      const total = { decisions: 0, filled: 0, savingsCounted: 0, eligible: 0, estimated: ZERO, realised: ZERO };
      const byVenue = new Map<SorVenue, { decisions: number; filled: number; realised: Decimal }>();
      for (const r of rows) {
        const v = byVenue.get(r.selected_venue) ?? { decisions: 0, filled: 0, realised: ZERO };
        byVenue.set(r.selected_venue, v);
        total.decisions++, v.decisions++;
        total.eligible += r.eligible_count;
        if (r.savings_usd != null) total.estimated = total.estimated.plus(r.savings_usd);
        const filledQty = new Decimal(r.filled_qty ?? 0);
        if (filledQty.lte(0) || r.avg_fill_price == null) continue;
        total.filled++, v.filled++;
        if (r.next_best_all_in_price == null) continue;
        const saved = realisedSavings({ side: r.side, nextBestAllInPrice: new Decimal(r.next_best_all_in_price), avgFillPrice: new Decimal(r.avg_fill_price), filledQty, feesUsd: new Decimal(r.fees ?? 0) });
        total.savingsCounted++;
        total.realised = total.realised.plus(saved);
        v.realised = v.realised.plus(saved);
      }
      ctx.body = {
        from: from.toISOString(),
        to: to.toISOString(),
        decisions: total.decisions,
        filled: total.filled,
        savingsCounted: total.savingsCounted,
        avgEligibleCandidates: total.decisions ? new Decimal(total.eligible).div(total.decisions).toFixed(2) : '0.00',
        estimatedSavingsUsd: usd6(total.estimated),
        realisedSavingsUsd: usd6(total.realised),
        byVenue: SOR_VENUES.filter((venue) => byVenue.has(venue)).map((venue) => ({ venue, decisions: byVenue.get(venue)!.decisions, filled: byVenue.get(venue)!.filled, realisedSavingsUsd: usd6(byVenue.get(venue)!.realised) })),
      };
    },
  );

  return router;
}

