/**
 * Activities of the hourly funding run (modules/accounts/workflows/funding.ts; docs/api.md §4.3 funding ledger, §4.7
 * `/reports/funding`): the recorded rates of an hour, the accounts holding open perp positions on a
 * venue, and the payment of one account. A payment is one transaction under the account lock:
 * the `funding_payments` row (its primary key makes a second payment of the same account, symbol
 * and hour a no-op), the cash balance change and a `funding.payment` event on the account log
 * (`/accounts/{id}/funding`, `/ws/risk` topic `Funding`), and a state snapshot (`funding`, or the
 * hour's `hourly` sample when nothing was paid: db/state-snapshots.ts) for `/accounts/{id}/state/history`.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { Decimal, fmt } from '../../../domain/decimal.js';
import { fundingPaymentUsd, rateForHour } from '../../../domain/market/funding.js';
import { findSymbol, PAPER_SYMBOLS } from '../../../domain/market/symbols.js';
import { AccountBalance, Position } from '../../../db/entities.js';
import { appendEvents, lockAccount } from '../../../db/events.js';
import { recordStateSnapshot } from '../../../db/state-snapshots.js';
import { platformEm, scoped } from '../../../db/orm.js';
import { readMark } from '../../../db/marks.js';
import { loadFundingRates } from '../../market/feeds/funding-rates.js';

export interface FundingDeps {
  orm: MikroORM;
  /** A mark older than this is not used for a payment (ms). */
  markMaxAgeMs: number;
}

/** The rate per symbol of one funding hour: a fraction as a decimal string, with the recorded time it comes from. */
export type HourRates = Record<string, { rate: string; recordedAt: string }>;

/** What one account was paid (negative: it paid), USD, and the positions skipped for want of a fresh mark. */
export interface AccountFunding {
  accountId: string;
  payments: number;
  amountUsd: string;
  skipped: string[];
}

export function fundingActivities({ orm, markMaxAgeMs }: FundingDeps) {
  return {
    /** The recorded rate of every perp of `venue` for the hour starting at `hourIso` (spec: domain/market/funding.ts mapping). */
    async fundingRates(venue: string, hourIso: string): Promise<HourRates> {
      const out: HourRates = {};
      for (const spec of PAPER_SYMBOLS.filter((s) => s.venue === venue && s.assetClass === 'perp')) {
        const r = rateForHour(await loadFundingRates(spec.sourceCoin), Date.parse(hourIso));
        out[spec.symbol] = { rate: fmt(r.rate), recordedAt: new Date(r.ts).toISOString() };
      }
      return out;
    },

    /** Accounts with an open position on `venue` (optionally of one tenant), ordered by id. */
    async accountsWithPositions(venue: string, tenantId: string | null): Promise<string[]> {
      const rows = await platformEm(orm).find(
        Position,
        { venue, qty: { $ne: '0' }, ...(tenantId ? { tenantId } : {}) },
        { filters: false, fields: ['accountId'], orderBy: { accountId: 'asc' } },
      );
      return [...new Set(rows.map((r) => r.accountId))];
    },

    /**
     * Pays the hour's funding on every open position of one account on `venue`, once: a position
     * already paid for this hour is left alone; one without a mark younger than `markMaxAgeMs` is
     * skipped (named in `skipped`). Writes the account's state snapshot of the hour in the same
     * transaction (at most one `hourly` sample per hour, however often the hour reruns).
     */
    async payFunding(accountId: string, venue: string, hourIso: string, rates: HourRates): Promise<AccountFunding> {
      const head = await platformEm(orm).findOneOrFail(Position, { accountId, venue }, { filters: false });
      return scoped(orm, head.tenantId).transactional(async (em) => {
        await lockAccount(em, accountId);
        const positions = await em.find(Position, { accountId, venue, qty: { $ne: '0' } });
        const result: AccountFunding = { accountId, payments: 0, amountUsd: '0', skipped: [] };
        let total = new Decimal(0);
        const events = [];
        for (const pos of positions) {
          const rate = rates[pos.symbol];
          if (!rate || !findSymbol(venue, pos.symbol)) continue;
          const mark = await readMark(em, venue, pos.symbol, markMaxAgeMs);
          if (!mark) {
            result.skipped.push(pos.symbol);
            continue;
          }
          const amount = fundingPaymentUsd(pos.qty, mark.mark, rate.rate);
          const inserted = await em.getConnection().execute<{ symbol: string }[]>(
            `insert into funding_payments (account_id, venue, symbol, hour, tenant_id, position_qty, mark_price, rate, amount_usd)
             values (?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing returning symbol`,
            [accountId, venue, pos.symbol, hourIso, head.tenantId, pos.qty, fmt(mark.mark), rate.rate, fmt(amount)],
            'all',
            em.getTransactionContext(),
          );
          if (!inserted.length) continue; // paid already
          total = total.plus(amount);
          result.payments++;
          events.push({
            kind: 'funding.payment',
            frameType: 'Funding-Update' as const,
            venue,
            data: {
              accountId,
              venue,
              type: 'funding',
              symbol: pos.symbol,
              hour: hourIso,
              positionQty: pos.qty,
              markPrice: fmt(mark.mark),
              rate: rate.rate,
              rateRecordedAt: rate.recordedAt,
              amountUsd: fmt(amount),
            },
          });
        }
        if (result.payments) {
          const balance = await em.findOneOrFail(AccountBalance, { accountId, venue });
          balance.balanceUsd = fmt(new Decimal(balance.balanceUsd).plus(total));
          await appendEvents(em, head.tenantId, accountId, events);
        }
        // The state series: a `funding` snapshot with the payment, else the hour's `hourly` sample (once per hour).
        await recordStateSnapshot(em, {
          tenantId: head.tenantId,
          accountId,
          venue,
          reason: result.payments ? 'funding' : 'hourly',
          hour: hourIso,
        });
        result.amountUsd = fmt(total);
        return result;
      });
    },
  };
}
