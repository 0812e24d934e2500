/**
 * Contract of `venue-account-<accountId>` (modules/accounts/workflows/venue-account.ts; docs/api.md §2.5
 * "Routed accounts"): a routed account's balances and positions, read from its venues.
 */
import type { VenueAccount } from '../../../venues/types.js';

/** Workflow id of one read of an account's venues (a concurrent read attaches to the running one). */
export const venueAccountWorkflowId = (accountId: string) => `venue-account-${accountId}`;

/** What to read: the account, and the routed venues it has an active agent on. */
export interface VenueAccountInput {
  accountId: string;
  venues: string[];
}

/**
 * One venue's answer: its account (null when the account has no active agent there any more), or
 * `error`, the reason the venue could not be read after retries.
 */
export type VenueAccountRead = { venue: string; account: VenueAccount | null; error?: string };
