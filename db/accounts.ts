/**
 * Account provisioning, shared by the API (`POST /accounts`, `POST /sandbox/paper-account`) and
 * the dev seed: the account row, its paper balance, the opening deposit event and the first state
 * snapshot (db/state-snapshots.ts), in one transaction.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DEFAULT_DEPOSIT_POLICY } from '../domain/tenant/config.js';
import { Account, AccountBalance, AccountEvent } from './entities.js';
import { recordStateSnapshot } from './state-snapshots.js';

/** Default opening balance of a paper account, USD: the platform's deposit policy default (domain/tenant/config.ts). */
export const DEFAULT_PAPER_DEPOSIT_USD = DEFAULT_DEPOSIT_POLICY.defaultUsd;

/** A new account id and human-facing number. */
export function newAccountIds(): { id: string; accountNumber: string } {
  const raw = randomBytes(10).toString('hex');
  return { id: `acc_${raw}`, accountNumber: `PA-${raw.slice(0, 8).toUpperCase()}` };
}

/**
 * Creates an internalised (venue `paper`) account funded with `depositUsd` (decimal string, USD).
 * `em` must be scoped to `tenantId`. Returns the account row.
 */
export async function provisionPaperAccount(
  em: EntityManager,
  opts: {
    tenantId: string;
    ownerId: string;
    name: string;
    depositUsd: string;
    tradingGroupId?: string | null;
    id?: string;
  },
) {
  return em.transactional(async (tx) => {
    const ids = newAccountIds();
    const account = tx.create(Account, {
      id: opts.id ?? ids.id,
      tenantId: opts.tenantId,
      accountNumber: ids.accountNumber,
      ownerId: opts.ownerId,
      name: opts.name,
      executionMode: 'internalised',
      baseCurrency: 'USD',
      tradingGroupId: opts.tradingGroupId ?? null,
      settings: {},
    });
    tx.create(AccountBalance, {
      accountId: account.id,
      venue: 'paper',
      tenantId: opts.tenantId,
      balanceUsd: opts.depositUsd,
    });
    tx.create(
      AccountEvent,
      {
        tenantId: opts.tenantId,
        accountId: account.id,
        seq: 1,
        kind: 'funding.deposit',
        topic: 'Funding',
        frameType: 'Funding-Update',
        venue: 'paper',
        data: { accountId: account.id, venue: 'paper', type: 'deposit', amountUsd: opts.depositUsd },
      },
      { partial: true },
    );
    await recordStateSnapshot(tx, {
      tenantId: opts.tenantId,
      accountId: account.id,
      venue: 'paper',
      reason: 'deposit',
    });
    return account;
  });
}
