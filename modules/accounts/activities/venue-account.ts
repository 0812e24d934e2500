/**
 * The venue's own balances and positions of a routed account (docs/api.md §2.5 "Routed accounts"): reads
 * `adapter.account()` (venues/types.ts) with the account's current agent, which signs the read as the
 * venue requires. The agent key is decrypted here only, for the call (modules/oms/activities/routed.ts
 * `venueContext`).
 */
import { ApplicationFailure } from '@temporalio/common';
import { isRouted } from '../../../domain/oms/intent.js';
import { sqlOfClient } from '../../../db/sql.js';
import { currentAgent } from '../../../db/agent-wallets.js';
import { ADAPTERS } from '../../../venues/registry.js';
import { VenueRejected, type VenueAccount } from '../../../venues/types.js';
import { venueContext, type RoutedDeps } from '../../oms/activities/routed.js';

export function venueAccountActivities(deps: RoutedDeps) {
  return {
    /**
     * The account's balances and positions on `venue`; null when `venue` is not routed or the account has
     * no active agent there. @throws ApplicationFailure `venue_rejected` (non-retryable) with the venue's
     * reason when the venue refuses the read; any other error is transport trouble (retried).
     */
    async readVenueAccount(accountId: string, venue: string): Promise<VenueAccount | null> {
      if (!isRouted(venue)) return null;
      const agent = await currentAgent(sqlOfClient(deps.pool), accountId, venue);
      if (!agent || agent.status !== 'active') return null;
      try {
        return await ADAPTERS[venue].account(venueContext(deps, agent));
      } catch (err) {
        if (!(err instanceof VenueRejected)) throw err;
        throw ApplicationFailure.create({ type: 'venue_rejected', message: err.reason, nonRetryable: true });
      }
    },
  };
}
