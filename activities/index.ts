/**
 * `createActivities(deps)`: every activity of the worker, built from injected clients
 * (Temporal samples' pattern). Workflows import only the *type* of this object.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { omsActivities } from './oms.js';
import { batchActivities } from './batch.js';
import { bracketActivities } from './bracket.js';
import { chaseActivities } from './chase.js';
import { fundingActivities } from './funding.js';
import { cancelPaper, executePaper } from './venues/paper/execute.js';
import { routedActivities, type RoutedDeps } from './venues/routed.js';
import { custodyActivities } from './custody/agents.js';
import { venueOrderActivities } from './venues/venue-orders.js';

/**
 * What the activities need: the ORM, a Temporal client (batch legs), the mark freshness bound (ms),
 * and for routed venues the custody key ring, venue URLs and signing network (RoutedDeps).
 */
export interface ActivityDeps extends RoutedDeps {
  temporal: Client;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...omsActivities(deps),
    ...batchActivities(deps),
    ...bracketActivities(deps),
    ...chaseActivities(deps),
    ...fundingActivities(deps),
    ...routedActivities(deps),
    ...custodyActivities(deps),
    ...venueOrderActivities(deps),
    /** First dispatch of an intent to the paper engine; idempotent. */
    dispatchPaper: (intentId: string) => executePaper(deps, intentId, 'arrival'),
    /** A resting paper order woken by a mark crossing: fill or trigger if the mark still crosses; idempotent. */
    fillRestingPaper: (intentId: string) => executePaper(deps, intentId, 'mark'),
    /** Cancels an open paper working order; idempotent (a filled or canceled order is returned as is). */
    cancelPaper: (intentId: string) => cancelPaper(deps, intentId),
  };
}

/** The activity object type, for `proxyActivities<Activities>()`. */
export type Activities = ReturnType<typeof createActivities>;
