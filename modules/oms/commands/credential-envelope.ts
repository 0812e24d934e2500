/**
 * The composing credential's risk envelope and allowlists at compose (docs/api.md §2.1, §2.6 "Further
 * checks"; the rules: domain/auth/envelope.ts). The limits come from the credential row as authentication
 * cached it (api/auth/auth-cache.ts, dropped by NOTIFY `credential_changed` when an operator changes them);
 * the position, the mark and the day's PnL are read only when an exposure limit needs them.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  exposureBreach,
  orderBreach,
  readsExposure,
  readsPnl,
  restricts,
  valuationPrice,
  type CredentialLimits,
} from '../../../domain/auth/envelope.js';
import type { ComposeIntent } from '../../../domain/oms/intent.js';
import { Position } from '../../../db/entities.js';
import { readMark } from '../../../db/marks.js';
import { scoped } from '../../../db/orm.js';
import type { ApiDeps, Caller } from '../../../api/context.js';

/**
 * The PnL of `accountId` today (UTC), USD decimal string: realised PnL of the round trips closed since
 * midnight UTC (manual ones included) net of their fees, plus the unrealised PnL of its open positions at
 * the current marks (a position without a mark counts 0).
 */
async function pnlToday(em: EntityManager, accountId: string): Promise<string> {
  const midnight = new Date(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
  const [row] = await em.getConnection().execute<{ pnl: string }[]>(
    `select (
       (select coalesce(sum(t.realized_pnl_usd - t.fees_usd), 0) from trades t where t.account_id = ? and t.closed_at >= ?)
     + (select coalesce(sum((m.mark - p.avg_entry_price) * p.qty), 0) from positions p
          join marks m on m.venue = p.venue and m.symbol = p.symbol where p.account_id = ? and p.qty <> 0)
     )::text as pnl`,
    [accountId, midnight, accountId],
  );
  return row.pnl;
}

/**
 * Refuses an order of `caller` on `accountId` that its credential's envelope or allowlists forbid. `body` is
 * the order where it executes (compose resolved it for the account's execution mode, docs/api.md §1): the
 * position and mark of the exposure limits are read there; `named` is the venue and symbol the request named,
 * which the allowlists check. A cookie session has no credential and no limits.
 * @throws ApiError `403 venue_not_allowed`, `403 symbol_not_allowed`, `400 envelope_leverage`,
 *   `400 envelope_order_notional`, `400 envelope_position_notional`, `403 daily_loss_limit`.
 */
export async function checkCredentialEnvelope(
  deps: ApiDeps,
  caller: Caller,
  accountId: string,
  body: ComposeIntent,
  named: { venue: string; symbol: string },
): Promise<void> {
  if (caller.session) return;
  const cred = await deps.auth.credential(caller.credentialId);
  const limits: CredentialLimits = {
    envelope: cred?.envelope ?? {},
    allowedVenues: cred?.allowedVenues ?? null,
    allowedSymbols: cred?.allowedSymbols ?? null,
  };
  if (!restricts(limits)) return;
  const refused = orderBreach(limits, { ...named, leverage: body.leverage });
  if (refused) throw refused;
  const { envelope } = limits;
  if (!readsExposure(envelope)) return;
  const em = scoped(deps.orm, caller.tenantId);
  const [position, mark, pnl] = await Promise.all([
    em.findOne(Position, { accountId, venue: body.venue, symbol: body.symbol }),
    body.type === 'market' ? readMark(em, body.venue, body.symbol, deps.config.markMaxAgeMs) : null,
    readsPnl(envelope) ? pnlToday(em, accountId) : null,
  ]);
  const breach = exposureBreach(envelope, {
    side: body.side,
    qty: body.qty,
    reduceOnly: body.reduceOnly,
    priceUsd: valuationPrice(body, () => mark?.mark.toFixed() ?? null),
    positionQty: position?.qty ?? '0',
    pnlTodayUsd: pnl,
  });
  if (breach) throw breach;
}
