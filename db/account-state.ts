/**
 * Account state of docs/api.md §2.5: one `perVenue` entry per venue the account holds a balance on,
 * valued at the current canonical marks; no top-level totals (the total is the sum of perVenue).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal, fmt } from '../domain/decimal.js';
import { venueState } from '../domain/paper/account.js';
import { Position } from './entities.js';
import type { Sql } from './sql.js';
import type { AccountStateRows } from './account-state-cache.js';
import { positionView } from './views.js';

/** Current marks (USD) of the given venue symbols keyed `<venue> <symbol>`, in one statement (missing ones absent). */
export async function marksFor(sql: Sql, keys: { venue: string; symbol: string }[]): Promise<Map<string, Decimal>> {
  if (!keys.length) return new Map();
  const rows = await sql.rows<{ venue: string; symbol: string; mark: string }>(
    `select m.venue, m.symbol, m.mark::text as mark
       from marks m join jsonb_to_recordset($1::jsonb) as k(venue text, symbol text) on k.venue = m.venue and k.symbol = m.symbol`,
    [JSON.stringify(keys.map((k) => ({ venue: k.venue, symbol: k.symbol })))],
  );
  return new Map(rows.map((m) => [`${m.venue} ${m.symbol}`, new Decimal(m.mark)]));
}

/**
 * Current marks of the symbols an account holds an open position in, keyed `<venue> <symbol>` (one
 * query, so it runs beside the read of the positions themselves).
 */
async function marksOfOpenPositions(em: EntityManager, accountId: string): Promise<Map<string, Decimal>> {
  const rows = await em.getConnection().execute<{ venue: string; symbol: string; mark: string }[]>(
    `select m.venue, m.symbol, m.mark::text as mark from marks m join positions p on p.venue = m.venue and p.symbol = m.symbol
        where p.account_id = ? and p.qty <> 0`,
    [accountId],
  );
  return new Map(rows.map((m) => [`${m.venue} ${m.symbol}`, new Decimal(m.mark)]));
}

/** Open positions of an account with marks and unrealised PnL. */
export async function openPositions(em: EntityManager, accountId: string) {
  const [rows, marks] = await Promise.all([
    em.find(Position, { accountId, qty: { $ne: '0' } }, { orderBy: { venue: 'asc', symbol: 'asc' } }),
    marksOfOpenPositions(em, accountId),
  ]);
  return rows.map((p) => positionView(p, marks.get(`${p.venue} ${p.symbol}`) ?? null));
}

/** A position as valued: decimal strings (contracts for `qty`, USD for the price). */
export interface HeldPosition {
  venue: string;
  symbol: string;
  qty: string;
  avgEntryPrice: string;
  leverage: string;
}

/**
 * The §2.5 figures of one venue: `balanceUsd` (decimal string) and its open positions, each valued at its
 * mark in `marks` (keyed `<venue> <symbol>`), else at its average entry price.
 */
export function valueVenue(balanceUsd: string, positions: HeldPosition[], marks: Map<string, Decimal>) {
  return venueState(
    new Decimal(balanceUsd),
    positions.map((p) => ({
      qty: new Decimal(p.qty),
      avgEntryPrice: new Decimal(p.avgEntryPrice),
      mark: marks.get(`${p.venue} ${p.symbol}`) ?? new Decimal(p.avgEntryPrice),
      leverage: new Decimal(p.leverage),
    })),
  );
}

/**
 * `{ accountId, accountNumber, perVenue }` (docs/api.md §2.5) from the account's rows (db/account-state-cache.ts)
 * and the marks of its open positions keyed `<venue> <symbol>` (a position without one is valued at its
 * entry price); every amount a USD decimal string.
 */
export function accountStateOf({ account, balances, positions }: AccountStateRows, marks: Map<string, Decimal>) {
  const perVenue = balances.map((b) => {
    const held = positions.filter((p) => p.venue === b.venue);
    const s = valueVenue(b.balanceUsd, held, marks);
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
