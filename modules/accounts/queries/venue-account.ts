/**
 * A routed account's state and positions as its venues report them (docs/api.md §2.5 "Routed accounts";
 * `GET /accounts/{id}/state`, `GET /accounts/{id}/positions`): a routed account's money is on the
 * exchanges, so the platform ledger has nothing to say about it. The venues are read by the worker
 * (workflow `venue-account-<accountId>`, modules/accounts/workflows/venue-account.ts) on every request,
 * on each routed venue the account has an active agent on; a venue that cannot be read is left out of
 * the answer and named in `unavailable`. The caller's ownership is checked by the route first.
 */
import { Decimal, fmt } from '../../../domain/decimal.js';
import { ApiError } from '../../../domain/errors.js';
import { ROUTED_VENUES } from '../../../domain/oms/intent.js';
import { platformEm } from '../../../db/orm.js';
import type { VenuePosition } from '../../../venues/types.js';
import { venueAccountWorkflowId, type VenueAccountRead } from '../workflows/venue-account.definitions.js';
import { venueAccountWorkflow } from '../workflows/venue-account.js';
import { searchAttributes } from '../../../workflows/shared.definitions.js';
import type { ApiDeps } from '../../../api/context.js';

/** How long a read of the venues may take before the api answers `503 service_unavailable`. */
const READ_TIMEOUT = '15 seconds';

/**
 * Every routed venue of the account's active agents, read through the worker, in venue order.
 * @throws ApiError `503 service_unavailable` when the read does not finish (no worker answering).
 */
export async function readVenueAccounts(
  deps: ApiDeps,
  account: { id: string; tenantId: string },
): Promise<VenueAccountRead[]> {
  const accountId = account.id;
  const rows = await platformEm(deps.orm)
    .getConnection()
    .execute<{ venue: string }[]>(
      `select distinct venue from agent_wallets where account_id = ? and status = 'active' order by venue`,
      [accountId],
    );
  const venues = rows.map((r) => r.venue).filter((v) => (ROUTED_VENUES as readonly string[]).includes(v));
  if (!venues.length) return [];
  try {
    return await deps.temporal.workflow.execute(venueAccountWorkflow, {
      workflowId: venueAccountWorkflowId(accountId),
      taskQueue: deps.config.temporal.taskQueue,
      args: [{ accountId, venues }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowExecutionTimeout: READ_TIMEOUT,
      typedSearchAttributes: searchAttributes({ tenantId: account.tenantId, accountId }),
    });
  } catch (err) {
    deps.logger.warn({ err, accountId }, 'venue account read failed');
    throw new ApiError('service_unavailable', `the venues of account ${accountId} could not be read; retry`);
  }
}

/** The venues that could not be read, and why (`unavailable` of both answers). */
const unavailable = (reads: VenueAccountRead[]) =>
  reads.filter((r) => r.error !== undefined).map((r) => ({ venue: r.venue, reason: r.error! }));

/** `GET /accounts/{id}/state` of a routed account (§2.5): one `perVenue` entry per venue read, as it values it. */
export function routedStateView(account: { id: string; accountNumber: string }, reads: VenueAccountRead[]) {
  return {
    accountId: account.id,
    accountNumber: account.accountNumber,
    perVenue: reads.flatMap(({ venue, account: a }) =>
      a
        ? [
            {
              venue,
              exchange: venue,
              equityUsd: a.equityUsd,
              balanceUsd: a.balanceUsd,
              marginUsedUsd: a.marginUsedUsd,
              marginAvailableUsd: a.marginAvailableUsd,
              unrealizedPnlUsd: a.unrealizedPnlUsd,
              openPositions: a.positions.length,
            },
          ]
        : [],
    ),
    unavailable: unavailable(reads),
  };
}

/** One venue position in the §2.5 position shape; what the venue does not report is null. */
function positionView(accountId: string, venue: string, p: VenuePosition) {
  const qty = new Decimal(p.qty);
  const mark = p.markPrice === null ? null : new Decimal(p.markPrice);
  return {
    accountId,
    venue,
    symbol: p.symbol,
    side: qty.isZero() ? 'flat' : qty.isPos() ? 'long' : 'short',
    qty: fmt(qty),
    avgEntryPrice: fmt(new Decimal(p.avgEntryPrice)),
    markPrice: mark ? fmt(mark) : null,
    notionalUsd: mark ? fmt(qty.abs().times(mark)) : null,
    unrealizedPnlUsd: p.unrealizedPnlUsd ?? (mark ? fmt(mark.minus(p.avgEntryPrice).times(qty)) : null),
    realizedPnlUsd: null,
    leverage: p.leverage,
    openedAt: null,
    updatedAt: null,
  };
}

/** `GET /accounts/{id}/positions` of a routed account: every venue's open positions, by venue then symbol. */
export function routedPositionsView(accountId: string, reads: VenueAccountRead[]) {
  return {
    positions: reads.flatMap(({ venue, account }) =>
      (account?.positions ?? [])
        .map((p) => positionView(accountId, venue, p))
        .sort((a, b) => a.symbol.localeCompare(b.symbol)),
    ),
    unavailable: unavailable(reads),
  };
}
