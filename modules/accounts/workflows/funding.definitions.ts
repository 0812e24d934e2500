/**
 * Contract of the hourly funding run `funding-<venue>-<hour>` (modules/accounts/workflows/funding.ts, docs/api.md §4.3, §4.7):
 * its id, input and result, the Schedule that starts it (worker/schedules.ts) and the scheduled-time
 * search attribute it reads its hour from.
 */
import { defineSearchAttributeKey } from '@temporalio/common';

/**
 * Workflow id of an hourly funding run: `funding-<venue>-<hour>`, the hour in RFC 3339 UTC without
 * milliseconds (`funding-paper-2026-11-22T10:00:00Z`; `hourIso` may be any ISO form of it). A
 * Temporal Schedule whose action id is `funding-<venue>` gets exactly this id (the Schedule appends
 * `-<scheduled time, RFC 3339>`), so a manual start of a scheduled hour is refused as a duplicate
 * while the scheduled run is open; a later rerun pays nothing twice (`funding_payments` key).
 */
export const fundingWorkflowId = (venue: string, hourIso: string) =>
  `funding-${venue}-${new Date(hourIso).toISOString().replace(/\.000Z$/, 'Z')}`;
/** Venues whose perps pay hourly funding (a Schedule each). */
export const FUNDING_VENUES = ['paper'] as const;
/** Schedule id of the hourly funding run of a venue. */
export const fundingScheduleId = (venue: string) => `funding-${venue}`;
/** The scheduled start time Temporal stamps on scheduled runs (a built-in search attribute). */
export const SCHEDULED_START = defineSearchAttributeKey('TemporalScheduledStartTime', 'DATETIME');

/** Input of a funding run. `hourIso` (on the hour) defaults to the scheduled hour; `tenantId` limits it to one tenant. */
export interface FundingInput {
  venue: string;
  hourIso?: string;
  tenantId?: string | null;
}

/** What a funding run did: the hour, its rates per symbol, accounts visited, payments made and their sum (USD). */
export interface FundingResult {
  venue: string;
  hourIso: string;
  rates: Record<string, { rate: string; recordedAt: string }>;
  accounts: number;
  payments: number;
  amountUsd: string;
  skipped: { accountId: string; symbols: string[] }[];
}
