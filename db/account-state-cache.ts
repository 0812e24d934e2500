/**
 * The account state cache of one api process (issue 15; docs/api.md §2.5 "Freshness"): the rows
 * `GET /accounts/{id}/state` is computed from — the account (owner, tenant, number), its balances per
 * venue and its open positions — kept in memory, so the route reads no table; the marks come from the
 * quotes hub's memory (api/ws/quotes-hub.ts) by the caller.
 *
 * Correctness rests on NOTIFY `account_changed` (migration AccountChanged: a row trigger on accounts,
 * account_balances and positions, whatever writes them), LISTENed on the api's notices connection
 * (db/notices.ts): the account's entry is dropped when it arrives, and a read that straddles any
 * notification is not kept (no stale put). The api's event hub also drops an account as soon as one of
 * its events arrives (api/ws/hub.ts), before the event reaches any socket: a client that saw a `filled`
 * frame reads the state after the fill. While the notices connection is down nothing is served from
 * memory. Entries expire after `ttlMs` and at most {@link MAX_ACCOUNTS} are kept.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BoundedMap } from '../domain/bounded-map.js';
import type { NoticeSubscriber } from './notices.js';

/** What the state is computed from; amounts are decimal strings (USD; contracts for `qty`). */
export interface AccountStateRows {
  /** `executionMode`: `internalised` or `routed` (a routed account's state is read from its venues instead). */
  account: { id: string; tenantId: string; ownerId: string; accountNumber: string; executionMode: string };
  /** One per venue the account holds a balance on, by venue. */
  balances: { venue: string; balanceUsd: string }[];
  /** Open positions (qty ≠ 0), by venue and symbol. */
  positions: { venue: string; symbol: string; qty: string; avgEntryPrice: string; leverage: string }[];
}

/** The cached reads. */
export interface AccountStateCache {
  /**
   * The account's rows, from memory when held, else from PostgreSQL (any tenant: the caller checks the
   * tenant and the owner). Null when there is no such account.
   */
  rows(em: EntityManager, accountId: string): Promise<AccountStateRows | null>;
  /** Drops the account (its event arrived: api/ws/hub.ts). */
  forget: (accountId: string) => void;
  /** Whether reads are served from memory now (caching on and the notices connection up). */
  listening(): boolean;
}

/** Accounts kept before the least recently read go. */
export const MAX_ACCOUNTS = 20_000;

/**
 * The cache and the subscriber that keeps it current (hand it to `startNotices`). `ttlMs` 0 turns it
 * off: every read goes to PostgreSQL.
 */
export function createAccountStateCache(ttlMs: number): {
  cache: AccountStateCache;
  subscriber: NoticeSubscriber;
} {
  let listening = false;
  /** Bumped by every change: a read that straddles one is not kept. */
  let epoch = 0;
  const held = new BoundedMap<AccountStateRows>(MAX_ACCOUNTS);
  const on = () => listening && ttlMs > 0;
  const forget = (accountId: string) => {
    epoch++;
    held.delete(accountId);
  };

  const subscriber: NoticeSubscriber = {
    channels: { account_changed: forget },
    up: () => (listening = true),
    lost() {
      listening = false;
      epoch++;
      held.clear();
    },
  };

  const cache: AccountStateCache = {
    async rows(em, accountId) {
      const hit = on() ? held.get(accountId) : undefined;
      if (hit) return hit.value;
      const before = epoch;
      const rows = await readRows(em, accountId);
      if (rows && on() && epoch === before) held.set(accountId, rows, Date.now() + ttlMs);
      return rows;
    },
    forget,
    listening: on,
  };
  return { cache, subscriber };
}

/**
 * The account, its balances and its open positions in ONE statement, without the tenant filter (the caller checks):
 * one snapshot of the three tables. Three parallel reads could return a torn state (a fill's new position beside the
 * balance from before its fee), which the state route then served.
 */
async function readRows(em: EntityManager, accountId: string): Promise<AccountStateRows | null> {
  const [row] = await em.getConnection().execute<AccountStateRows[]>(
    `select json_build_object('id', a.id, 'tenantId', a.tenant_id, 'ownerId', a.owner_id,
              'accountNumber', a.account_number, 'executionMode', a.execution_mode) as account,
            coalesce((select json_agg(json_build_object('venue', b.venue, 'balanceUsd', b.balance_usd::text) order by b.venue)
                        from account_balances b where b.account_id = a.id), '[]'::json) as balances,
            coalesce((select json_agg(json_build_object('venue', p.venue, 'symbol', p.symbol, 'qty', p.qty::text,
                                'avgEntryPrice', p.avg_entry_price::text, 'leverage', p.leverage::text) order by p.venue, p.symbol)
                        from positions p where p.account_id = a.id and p.qty <> 0), '[]'::json) as positions
       from accounts a where a.id = ?`,
    [accountId],
  );
  return row ?? null;
}
