/**
 * Venue simulators for API tests (simulators/index.ts) reading the run's mark store, and the
 * custody flow walked through the API the way a user's wallet would.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { generatePrivateKey } from 'viem/accounts';
import { fmt } from '../../domain/decimal.js';
import { platformEm } from '../../db/orm.js';
import { readMark } from '../../db/marks.js';
import { startSimulators as start, userAuthorization, venueUser, type Simulators } from '../../simulators/index.js';
import type { Stack } from './stack.js';

export type { Simulators };

/** Starts all four simulators against the mark store of `orm` (any age: tests publish marks when they need them). */
export function startSimulators(orm: MikroORM): Promise<Simulators> {
  return start((venue) => async (symbol) => {
    const tick = await readMark(platformEm(orm), venue, symbol, Number.MAX_SAFE_INTEGER);
    return tick ? fmt(tick.mark) : null;
  });
}

/** A fresh end user with their own wallet. */
export const newVenueUser = (venue: string) => venueUser(venue, generatePrivateKey());

/**
 * Creates an agent for `accountId` on `venue` through the API and authorises it with the user's
 * own wallet. Returns the active agent view, the user and the creation answer.
 * @throws Error when the API refuses either step.
 */
export async function authorizeAgent(
  s: Stack,
  sims: Simulators,
  token: string,
  accountId: string,
  venue: 'hyperliquid' | 'aster' | 'polymarket' | 'kalshi',
  user = newVenueUser(venue),
) {
  const created = await s.call('POST', `/api/v1/accounts/${accountId}/agents`, {
    token,
    body: { venue, owner: user.owner },
  });
  if (created.status !== 201) throw new Error(`agent create failed: ${created.status} ${JSON.stringify(created.body)}`);
  const signature = await userAuthorization(sims, user, created.body.authorization);
  const done = await s.call('POST', `/api/v1/accounts/${accountId}/agents/${created.body.agentId}/authorization`, {
    token,
    body: { signature },
  });
  if (done.status !== 200) throw new Error(`agent authorization failed: ${done.status} ${JSON.stringify(done.body)}`);
  return { agent: done.body, user, created: created.body };
}
