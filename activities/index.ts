/**
 * `createActivities(deps)`: every activity of the worker, built from injected clients
 * (Temporal samples' pattern). Workflows import only the *type* of this object.
 */
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
import { firmDeployActivities } from './prop/firm-deploy.js';
import { challengeActivities, nudgeChallenge } from './prop/challenge.js';
import { payoutActivities } from './prop/payout.js';
import { transparencyActivities } from './prop/transparency.js';
import type { ChainConfig } from './prop/chain-deps.js';
import { webhookActivities } from './webhooks/delivery.js';
import { timedDispatch } from './metrics.js';

/**
 * What the activities need: the ORM, a Temporal client (batch legs), the mark freshness bound (ms),
 * for routed venues the custody key ring, venue URLs and signing network (RoutedDeps), the
 * prop firms' chain, and optionally the worker's metrics (`metrics`, activities/metrics.ts).
 */
export interface ActivityDeps extends RoutedDeps {
  temporal: Client;
  /** The EVM chain of the prop firms (RPC URL, deployer key, confirmations). */
  chain: ChainConfig;
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
    ...firmDeployActivities(deps),
    ...challengeActivities(deps),
    ...payoutActivities(deps),
    ...transparencyActivities(deps),
    ...webhookActivities(deps),
    /** First dispatch of an intent to the paper engine; idempotent. A fill of a challenge account nudges its rule watch. Timed as venue `paper`. */
    dispatchPaper: (intentId: string) =>
      timedDispatch(deps.metrics, 'paper', async () => {
        const outcome = await executePaper(deps, intentId, 'arrival');
        await nudgeChallenge(deps, intentId, outcome);
        return outcome;
      }),
    /** A resting paper order woken by a mark crossing: fill or trigger if the mark still crosses; idempotent. */
    fillRestingPaper: async (intentId: string) => {
      const outcome = await executePaper(deps, intentId, 'mark');
      await nudgeChallenge(deps, intentId, outcome);
      return outcome;
    },
    /** Cancels an open paper working order; idempotent (a filled or canceled order is returned as is). */
    cancelPaper: (intentId: string) => cancelPaper(deps, intentId),
  };
}

/** The activity object type, for `proxyActivities<Activities>()`. */
export type Activities = ReturnType<typeof createActivities>;
