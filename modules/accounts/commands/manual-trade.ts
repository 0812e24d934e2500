/**
 * `POST /api/v1/accounts/{id}/manual-trades` (docs/api.md §2.10): import one off-platform round trip. It
 * counts in PnL, not in volume; the `trade.imported` event carries it to /ws/risk.
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from '../../../domain/errors.js';
import { dec, fmt } from '../../../domain/decimal.js';
import { VENUE_SUFFIX } from '../../../domain/market/symbols.js';
import { Trade } from '../../../db/entities.js';
import { appendEvents, lockAccount } from '../../../db/events.js';
import { scoped } from '../../../db/orm.js';
import { tradeView } from '../../../db/views.js';
import { ownedAccount } from '../../../api/auth/ownership.js';
import type { ApiDeps, Caller } from '../../../api/context.js';

/** One round trip as the trader reports it (accounts.schemas.ts `manualTradeBody`): size in contracts, prices and fees USD, times ISO 8601. */
export interface ManualTrade {
  symbol: string;
  side: 'long' | 'short';
  qty: number;
  entryPrice: number;
  exitPrice: number;
  fees?: number;
  entryTime: string;
  exitTime: string;
}

/**
 * Records the round trip on the caller's account `accountId` (`source: manual`, realised PnL from the
 * prices) and answers it as a trade.
 * @throws ApiError `400 validation_failed` (`symbol_suffix`: not a venue-suffixed symbol), as ownedAccount.
 */
export async function importManualTrade(deps: ApiDeps, caller: Caller, accountId: string, body: ManualTrade) {
  const suffix = body.symbol.split('.').at(-1) ?? '';
  const venue = Object.entries(VENUE_SUFFIX).find(([, s]) => s === suffix)?.[0];
  if (!/^[A-Z0-9]+\.[A-Z0-9]+$/.test(body.symbol) || !venue) {
    const message = `a venue-suffixed symbol such as BTC.PAPER (suffixes: ${Object.values(VENUE_SUFFIX).join(', ')})`;
    throw new ApiError('validation_failed', [{ path: 'body.symbol', message, code: 'symbol_suffix' }]);
  }
  const [qty, entry, exit] = [dec(body.qty), dec(body.entryPrice), dec(body.exitPrice)];
  const pnl = (body.side === 'long' ? exit.minus(entry) : entry.minus(exit)).times(qty);
  const trade = await scoped(deps.orm, caller.tenantId).transactional(async (tx) => {
    await ownedAccount(tx, caller, accountId);
    await lockAccount(tx, accountId);
    const row = tx.create(Trade, {
      id: `mt_${randomBytes(10).toString('hex')}`,
      tenantId: caller.tenantId,
      accountId,
      venue,
      symbol: body.symbol,
      side: body.side,
      qty: fmt(qty),
      entryPrice: fmt(entry),
      exitPrice: fmt(exit),
      realizedPnlUsd: fmt(pnl),
      feesUsd: fmt(dec(body.fees ?? 0)),
      openedAt: new Date(body.entryTime),
      closedAt: new Date(body.exitTime),
      exitFillId: null,
      source: 'manual',
    });
    await appendEvents(tx, caller.tenantId, accountId, [
      { kind: 'trade.imported', frameType: 'Fill', venue, data: tradeView(row) },
    ]);
    return row;
  });
  return tradeView(trade);
}
