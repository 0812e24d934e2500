/** Schemas of `GET /api/v1/accounts/{id}/state/history` (spec §4.3, §8). */
import { z } from 'zod';

/** Spec §8: `limit` default 1000, cap 5000 (above → 400 `validation_failed`). Window-based, no cursor. */
export const stateHistoryQuery = z
  .object({
    venue: z.string().min(1).optional().meta({ description: 'Only points of this venue (e.g. `paper`)' }),
    from: z.iso.datetime().optional().meta({ description: 'Inclusive, ISO 8601' }),
    to: z.iso.datetime().optional().meta({ description: 'Exclusive, ISO 8601' }),
    limit: z.coerce.number().int().min(1).max(5000).default(1000).meta({ description: 'Default 1000, cap 5000' }),
  })
  .meta({ id: 'StateHistoryWindow' });

const usd = (description: string) => z.string().meta({ description: `Decimal string, USD. ${description}` });

export const statePoint = z
  .object({
    seq: z.number().int().meta({ description: 'Seq of the account event the point follows' }),
    kind: z.string().meta({ description: '`funding.deposit`, `funding.withdrawal`, `funding.payment` or `fill.executed`' }),
    ts: z.string().meta({ description: 'When the event was logged, ISO 8601' }),
    venue: z.string(),
    balanceUsd: usd('Cash of the venue after the event: deposits − withdrawals + realised PnL − fees + funding'),
    realizedPnlUsd: usd('Cumulative realised PnL of fills on the venue, before fees'),
    feesUsd: usd('Cumulative fees on the venue'),
    fundingUsd: usd('Cumulative funding payments on the venue, signed (negative = paid)'),
    positions: z.number().int().meta({ description: 'Open positions (symbols with non-zero net contracts) on the venue' }),
    notionalUsd: usd('Σ |contracts| × last fill price of the symbol over open positions'),
    equityUsd: usd('balanceUsd + Σ (last fill price − average entry) × signed contracts over open positions'),
  })
  .meta({ id: 'StatePoint' });

export const stateHistoryView = z
  .object({
    points: z.array(statePoint).meta({ description: 'Oldest first' }),
    truncated: z.boolean().meta({ description: 'True when more than `limit` points fell in the window; the newest `limit` are returned' }),
  })
  .meta({
    id: 'StateHistory',
    description:
      'Replayed from the account event log (no stored series). The account events are replayed in seq order from the first one; each event that changes state ' +
      'yields one point with the state of its venue after the event: `funding.deposit` adds amountUsd to cash, `funding.withdrawal` subtracts |amountUsd|, ' +
      '`funding.payment` adds its signed amountUsd to cash and to fundingUsd, `fill.executed` adds realizedPnlUsd − feeUsd to cash, accumulates realised PnL and fees, ' +
      'and moves the net position of its symbol (average entry as the paper engine keeps it). Other events (intents, order book, position frames, imported manual trades, ' +
      'which never move cash) yield no point. Historical marks are not kept, so open positions are marked at the last fill price of their symbol on the account: ' +
      'equityUsd = balanceUsd + Σ (last fill price − average entry) × contracts and notionalUsd = Σ |contracts| × last fill price; margin is not part of the series. ' +
      'The window (`venue`, `from` ≤ ts < `to`) selects points after the replay, so balances are always cumulative from the account opening. ' +
      'When more than `limit` points fall in the window the newest `limit` are returned and `truncated` is true; to read older points, send `to` = the first point’s ts ' +
      '(points sharing that millisecond are then skipped as well). The last point of a venue equals that venue’s `balanceUsd` in `GET /accounts/{id}/state`.',
  });
