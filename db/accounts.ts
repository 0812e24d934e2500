/**
 * Account provisioning, shared by the API (`POST /accounts`, `POST /sandbox/paper-account`, challenge
 * purchases, operator-issued credentials) and the dev seed: the account row in its execution mode
 * (docs/api.md §1) and, for an internalised account, its paper balance, the opening deposit event and the
 * first state snapshot (db/state-snapshots.ts), in one transaction. A routed account holds its money on the
 * exchanges: it opens with no paper balance.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DEFAULT_DEPOSIT_POLICY } from '../domain/tenant/config.js';
import type { ExecutionMode } from '../domain/oms/execution.js';
import { Account, AccountBalance, AccountEvent } from './entities.js';
import { recordStateSnapshot } from './state-snapshots.js';

/** Default opening balance of a paper account, USD: the platform's deposit policy default (domain/tenant/config.ts). */
export const DEFAULT_PAPER_DEPOSIT_USD = DEFAULT_DEPOSIT_POLICY.defaultUsd;

/** A new account id and human-facing number. */
export function newAccountIds(): { id: string; accountNumber: string } {
  const raw = randomBytes(10).toString('hex');
  return { id: `acc_${raw}`, accountNumber: `PA-${raw.slice(0, 8).toUpperCase()}` };
}

/** How a new account executes: internalised with its opening paper deposit (USD decimal string), or routed. */
export type NewAccountMode = { executionMode: 'internalised'; depositUsd: string } | { executionMode: 'routed' };

/** The {@link NewAccountMode} of an account in `executionMode`: an internalised one opens with `depositUsd`. */
export const accountMode = (executionMode: ExecutionMode, depositUsd: string): NewAccountMode =>
  executionMode === 'routed' ? { executionMode } : { executionMode, depositUsd };

/** The name of a new account when its opener gives none. */
export const DEFAULT_ACCOUNT_NAME: Record<ExecutionMode, string> = {
  internalised: 'Paper account',
  routed: 'Routed account',
};

/**
 * Creates an account in `opts.executionMode` (module doc): an internalised one funded with `depositUsd`
 * on venue `paper`, a routed one without a balance. `em` must be scoped to `tenantId`. Returns the account row.
 */
export async function provisionAccount(
  em: EntityManager,
  opts: {
    tenantId: string;
    ownerId: string;
    name: string;
    tradingGroupId?: string | null;
    id?: string;
  } & NewAccountMode,
) {
  return em.transactional(async (tx) => {
    const ids = newAccountIds();
    const account = tx.create(Account, {
      id: opts.id ?? ids.id,
      tenantId: opts.tenantId,
      accountNumber: ids.accountNumber,
      ownerId: opts.ownerId,
      name: opts.name,
      executionMode: opts.executionMode,
      baseCurrency: 'USD',
      tradingGroupId: opts.tradingGroupId ?? null,
      settings: {},
    });
    if (opts.executionMode === 'routed') return account;
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
