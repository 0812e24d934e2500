/**
 * Account state of docs/api.md §2.5: one `perVenue` entry per venue the account holds a balance on,
 * valued at the current canonical marks; no top-level totals (the total is the sum of perVenue).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal, fmt } from '../domain/decimal.js';
import { venueState } from '../domain/paper/account.js';
import { AccountBalance, Mark, Position, type AccountRow } from './entities.js';
import { positionView } from './views.js';

/** Current marks of the given venue symbols (missing ones absent). */
export async function marksFor(
  em: EntityManager,
  keys: { venue: string; symbol: string }[],
): Promise<Map<string, Decimal>> {
  if (!keys.length) return new Map();
  const rows = await em.find(Mark, { $or: keys.map((k) => ({ venue: k.venue, symbol: k.symbol })) });
  return new Map(rows.map((m) => [`${m.venue} ${m.symbol}`, new Decimal(m.mark)]));
}

/** Open positions of an account with marks and unrealised PnL. */
export async function openPositions(em: EntityManager, accountId: string) {
  const rows = await em.find(Position, { accountId, qty: { $ne: '0' } }, { orderBy: { venue: 'asc', symbol: 'asc' } });
  const marks = await marksFor(em, rows);
  return rows.map((p) => positionView(p, marks.get(`${p.venue} ${p.symbol}`) ?? null));
}

/** `{ accountId, accountNumber, perVenue }` (docs/api.md §2.5), every amount a USD decimal string. */
export async function accountState(em: EntityManager, account: AccountRow) {
  const balances = await em.find(AccountBalance, { accountId: account.id }, { orderBy: { venue: 'asc' } });
  const positions = await em.find(Position, { accountId: account.id, qty: { $ne: '0' } });
  const marks = await marksFor(em, positions);
  const perVenue = balances.map((b) => {
    const held = positions.filter((p) => p.venue === b.venue);
    const s = venueState(
      new Decimal(b.balanceUsd),
      held.map((p) => ({
        qty: new Decimal(p.qty),
        avgEntryPrice: new Decimal(p.avgEntryPrice),
        mark: marks.get(`${p.venue} ${p.symbol}`) ?? new Decimal(p.avgEntryPrice),
        leverage: new Decimal(p.leverage),
      })),
    );
    return {
      venue: b.venue,
      exchange: b.venue === 'paper' ? 'platform' : b.venue,
      equityUsd: fmt(s.equityUsd),
      balanceUsd: fmt(s.balanceUsd),
      marginUsedUsd: fmt(s.marginUsedUsd),
      marginAvailableUsd: fmt(s.marginAvailableUsd),
      unrealizedPnlUsd: fmt(s.unrealizedPnlUsd),
      openPositions: held.length,
    };
  });
  return { accountId: account.id, accountNumber: account.accountNumber, perVenue };
}
