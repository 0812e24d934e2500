/**
 * `venue-orders-<accountId>-<venue>`: refreshes an account's order list from its venue (the
 * `/order-history` read, docs/api.md §4.3) through the `syncVenueOrders` activity. Short-lived; a
 * concurrent read attaches to the running refresh.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../../activities/index.js';
import type { VenueOrdersSync } from '../activities/venue-orders.js';

const { syncVenueOrders } = proxyActivities<Activities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '300 milliseconds', maximumInterval: '3 seconds', maximumAttempts: 3 },
});

export async function venueOrdersSyncWorkflow(accountId: string, venue: string): Promise<VenueOrdersSync> {
  return syncVenueOrders(accountId, venue);
}
