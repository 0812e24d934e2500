/**
 * What several workflows share: the search-attribute keys and the attributes a workflow starts with
 * (docs/architecture.md "Temporal model"). Each workflow's own contract (id, input, result, Updates,
 * Signals, Queries) is in `workflows/<workflow>.definitions.ts`; the api, the worker and the
 * workflows import those. Imports only Temporal's definition helpers, so every side can load it.
 */
import { defineSearchAttributeKey, type SearchAttributePair } from '@temporalio/common';
import type { IntentState } from '../domain/oms/intent.js';

/** Search attributes on every workflow (docs/architecture.md), registered on the dev server by temporal-dev.yml. */
export const SA = {
  tenantId: defineSearchAttributeKey('TenantId', 'KEYWORD'),
  accountId: defineSearchAttributeKey('AccountId', 'KEYWORD'),
  venue: defineSearchAttributeKey('Venue', 'KEYWORD'),
  intentState: defineSearchAttributeKey('IntentState', 'KEYWORD'),
} as const;

/**
 * The search attributes a workflow starts with: tenant, account and (when known) venue, plus the
 * intent state for intent workflows, so support staff can filter in the Temporal Web UI.
 */
export function searchAttributes(
  of: { tenantId: string; accountId: string; venue?: string },
  intentState?: IntentState,
): SearchAttributePair[] {
  return [
    { key: SA.tenantId, value: of.tenantId },
    { key: SA.accountId, value: of.accountId },
    ...(of.venue ? [{ key: SA.venue, value: of.venue }] : []),
    ...(intentState ? [{ key: SA.intentState, value: intentState }] : []),
  ];
}

/**
 * History bound of the long-lived workflows (docs/architecture.md "History bound"): a run continues as new once its
 * history holds this many events (`WORKFLOW_HISTORY_BOUND`, read by the worker; or `historyBound` in a workflow's
 * input), or sooner when Temporal suggests it. The default is a fifth of Temporal's hard limit of 50,000 events; the
 * floor leaves a continued run room to take a step before it may continue again; the ceiling keeps the room above it.
 */
export const HISTORY_BOUND = { default: 10_000, min: 50, max: 40_000 } as const;
