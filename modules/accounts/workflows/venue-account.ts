/**
 * `venue-account-<accountId>`: a routed account's balances and positions, read from each of its venues
 * at once through the `readVenueAccount` activity (docs/api.md §2.5 "Routed accounts"; the api's
 * `GET /accounts/{id}/state` and `/positions`). Short-lived; a concurrent read attaches to the running
 * one. A venue that cannot be read after the retries is answered with its reason; the others still are.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../../activities/index.js';
import type { VenueAccountInput, VenueAccountRead } from './venue-account.definitions.js';

const { readVenueAccount } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '2 seconds', maximumAttempts: 3 },
});

/** The reason of a failed read: the activity's own message, else the failure's. */
const reasonOf = (err: unknown): string =>
  err instanceof ActivityFailure && err.cause instanceof ApplicationFailure
    ? err.cause.message
    : err instanceof Error
      ? err.message
      : String(err);

export async function venueAccountWorkflow(input: VenueAccountInput): Promise<VenueAccountRead[]> {
  return Promise.all(
    input.venues.map(async (venue): Promise<VenueAccountRead> => {
      try {
        return { venue, account: await readVenueAccount(input.accountId, venue) };
      } catch (err) {
        return { venue, account: null, error: reasonOf(err) };
      }
    }),
  );
}
