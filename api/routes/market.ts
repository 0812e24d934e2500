/**
 * `/api/v1/market/*` (spec §4.6), the part served from the canonical marks: the current quote and
 * the L2 depth of a venue symbol. A pair with no mark yet answers `503 cold_cache` (retry after
 * about 500 ms). The bare prefixes are 404. Candles, grouped depth, tape, stats and fx: issue 5.
 */
import Router from '@koa/router';
import { z } from 'zod';
import { ApiError } from '../../domain/errors.js';
import { findSymbol } from '../../domain/market/symbols.js';
import { Mark } from '../../db/entities.js';
import { platformEm } from '../../db/orm.js';
import { gate } from '../middleware/auth.js';
import type { ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';

const pairParams = z.object({ venue: z.string().min(1), symbol: z.string().min(1) });
const quoteView = z
  .object({ venue: z.string(), symbol: z.string(), mark: z.string(), bid: z.string(), ask: z.string(), ts: z.string(), source: z.string() })
  .meta({ id: 'Quote', description: 'Canonical mark (mid of best bid and offer), USD decimal strings' });
const depthQuery = z.object({ levels: z.coerce.number().int().min(1).max(20).default(20).meta({ description: 'Levels per side, 1-20' }) });
const depthView = z
  .object({ venue: z.string(), symbol: z.string(), ts: z.string(), bids: z.array(z.tuple([z.string(), z.string()])), asks: z.array(z.tuple([z.string(), z.string()])) })
  .meta({ id: 'Depth', description: 'L2 book: `[price USD, size contracts]`, bids best first, asks best first' });

/** Where marks come from in this deployment (documented on every quote). */
export const MARK_SOURCE = 'replay:hyperliquid';

export function marketRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/market' });
  const tags = ['market'];
  const read = gate({ audience: 'trader' });

  /** The current mark row of a pair. @throws 404 symbol_unknown, 503 cold_cache. */
  async function markOf(venue: string, symbol: string) {
    if (!findSymbol(venue, symbol)) throw new ApiError('symbol_unknown', `unknown pair ${venue}/${symbol}; see GET /api/v1/symbols/${venue}`);
    const row = await platformEm(deps.orm).findOne(Mark, { venue, symbol });
    if (!row) throw new ApiError('cold_cache', `no mark for ${venue}/${symbol} yet; retry in about 500 ms`, {}, { 'Retry-After': '1' });
    return row;
  }

  endpoint(router, openapi, { method: 'get', path: '/quotes/:venue/:symbol', summary: 'Current canonical quote of a pair', tags, gate: read, schemas: { params: pairParams }, responses: { '200': { description: 'Quote', schema: quoteView } } }, async (ctx, { params }) => {
    const m = await markOf(params.venue, params.symbol);
    ctx.body = { venue: m.venue, symbol: m.symbol, mark: m.mark, bid: m.bid, ask: m.ask, ts: m.ts.toISOString(), source: MARK_SOURCE };
  });

  endpoint(router, openapi, { method: 'get', path: '/depth/:venue/:symbol', summary: 'L2 order-book depth of a pair (the recorded book re-centred on the mark)', tags, gate: read, schemas: { params: pairParams, query: depthQuery }, responses: { '200': { description: 'Depth', schema: depthView } } }, async (ctx, { params, query }) => {
    const m = await markOf(params.venue, params.symbol);
    ctx.body = { venue: m.venue, symbol: m.symbol, ts: m.ts.toISOString(), bids: m.book.bids.slice(0, query.levels), asks: m.book.asks.slice(0, query.levels) };
  });

  return router;
}
