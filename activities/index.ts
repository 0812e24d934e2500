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

/** What the activities need: the ORM, a Temporal client (batch legs) and the mark freshness bound (ms). */
export interface ActivityDeps {
  orm: MikroORM;
  temporal: Client;
  markMaxAgeMs: number;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...omsActivities(deps),
    ...batchActivities(deps),
    ...bracketActivities(deps),
    ...chaseActivities(deps),
    ...fundingActivities(deps),
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
