/** Schemas of `GET /api/v1/accounts/{id}/state/history` (docs/api.md §4.3, §8); `/state` answers accounts.schemas.ts `accountStateView`. */
import { z } from 'zod';

/** Spec §8: `limit` default 1000, cap 5000 (above → 400 `validation_failed`). Window-based, no cursor. */
export const stateHistoryQuery = z
  .object({
    venue: z.string().min(1).max(255).optional().meta({ description: 'Only points of this venue (e.g. `paper`)' }),
    from: z.iso.datetime().optional().meta({ description: 'Inclusive, ISO 8601' }),
    to: z.iso.datetime().optional().meta({ description: 'Exclusive, ISO 8601' }),
    limit: z.coerce.number().int().min(1).max(5000).default(1000).meta({ description: 'Default 1000, cap 5000' }),
  })
  .meta({ id: 'StateHistoryWindow' });

const usd = (description: string) => z.string().meta({ description: `Decimal string, USD. ${description}` });

export const statePoint = z
  .object({
    ts: z.string().meta({ description: 'When the state was sampled, ISO 8601 (the commit of the change it follows)' }),
    venue: z.string(),
    reason: z.enum(['deposit', 'withdrawal', 'transfer', 'fill', 'funding', 'hourly', 'backfill']).meta({
      description:
        '`deposit` (account opening or a deposit), `withdrawal`, `transfer` (a funding operation, docs/api.md §4.3), `fill` (an execution filled), `funding` (a funding payment), `hourly` (the funding run’s hourly sample), `backfill` (first sample of an account that existed before snapshots were kept)',
    }),
    hour: z
      .string()
      .nullable()
      .meta({ description: 'The funding hour (ISO 8601) of a `funding` or `hourly` sample; null otherwise' }),
    equityUsd: usd('balanceUsd + unrealizedPnlUsd'),
    balanceUsd: usd('Cash: deposits − withdrawals + realised PnL − fees + funding'),
    unrealizedPnlUsd: usd('Σ (mark − average entry) × signed contracts over open positions'),
    marginUsedUsd: usd('Σ |contracts| × mark / leverage over open positions'),
    marginAvailableUsd: usd('max(0, equityUsd − marginUsedUsd)'),
    openPositions: z.number().int().meta({ description: 'Open positions on the venue' }),
  })
  .meta({ id: 'StatePoint' });

export const stateHistoryView = z
  .object({
    points: z.array(statePoint).meta({ description: 'Oldest first' }),
    truncated: z
      .boolean()
      .meta({ description: 'True when more than `limit` points fell in the window; the newest `limit` are returned' }),
  })
  .meta({
    id: 'StateHistory',
    description:
      'The docs/api.md §2.5 state of the account per venue (the fields of `GET /accounts/{id}/state`), sampled and stored as it happens (table `account_state_snapshots`), ' +
      'valued at the canonical marks of the moment (a position without a mark at its average entry). Sampling: one point in the same transaction as every change of ' +
      'the state — the opening deposit (`deposit`), each execution that fills (`fill`: one point per dispatch or mark wake-up that filled, after all its fills), each ' +
      'funding payment (`funding`) — and one point per funding hour (`hourly`, at most one per account, venue and hour, from the hourly funding run) for every account ' +
      'holding positions on the venue, because equity and margin move with the marks between changes. A flat account’s state only changes with its events, so it is ' +
      'not sampled hourly. Marks are not re-sampled between hours. ' +
      'The window is `venue`, `from` ≤ ts < `to`. When more than `limit` points fall in it the newest `limit` are returned and `truncated` is true; to read older ' +
      'points, send `to` = the first point’s ts (points sharing that millisecond are then skipped as well).',
  });
