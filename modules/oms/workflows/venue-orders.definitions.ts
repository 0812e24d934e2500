/** Contract of `venue-orders-<accountId>-<venue>` (modules/oms/workflows/venue-orders.ts, the `/order-history` read, docs/api.md §4.3). */

/**
 * Workflow id of one refresh of an account's venue order list: `venue-orders-<accountId>-<venue>`
 * (a concurrent read attaches to the running one).
 */
export const venueOrdersSyncWorkflowId = (accountId: string, venue: string) => `venue-orders-${accountId}-${venue}`;
