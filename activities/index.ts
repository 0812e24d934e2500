/**
 * `createActivities(deps)`: every activity of the worker, built from injected clients
 * (Temporal samples' pattern). Workflows import only the *type* of this object.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { omsActivities } from '../modules/oms/activities/oms.js';
import { batchActivities } from '../modules/oms/activities/batch.js';
import { bracketActivities } from '../modules/oms/activities/bracket.js';
import { chaseActivities } from '../modules/oms/activities/chase.js';
import { fundingActivities } from '../modules/accounts/activities/funding.js';
import {
  cancelPaper,
  checkAndExecutePaper,
  executePaper,
  recordAndExecutePaper,
} from '../modules/oms/activities/paper.js';
import { routedActivities, type RoutedDeps } from '../modules/oms/activities/routed.js';
import { custodyActivities } from '../modules/custody/activities/agents.js';
import { venueOrderActivities } from '../modules/oms/activities/venue-orders.js';
import { venueAccountActivities } from '../modules/accounts/activities/venue-account.js';
import { firmDeployActivities } from '../modules/prop/activities/firm-deploy.js';
import { challengeActivities, nudgeChallenge } from '../modules/prop/activities/challenge.js';
import { payoutActivities } from '../modules/prop/activities/payout.js';
import { transparencyActivities } from '../modules/prop/activities/transparency.js';
import type { ChainConfig } from '../modules/prop/activities/chain-deps.js';
import { webhookActivities } from '../modules/webhooks/activities/delivery.js';
import { timedDispatch } from './metrics.js';
import type { DispatchOutcome, RiskVerdict } from './types.js';
import type { IntentView } from '../domain/oms/intent.js';
import type { IntentWorkflowInput } from '../modules/oms/workflows/intent.definitions.js';

/**
 * What the activities need: the ORM, a Temporal client (batch legs), the mark freshness bound (ms),
 * for routed venues the custody key ring, venue URLs and signing network (RoutedDeps), the
 * prop firms' chain, and optionally the worker's metrics (`metrics`, activities/metrics.ts).
 */
export interface ActivityDeps extends RoutedDeps {
  orm: MikroORM;
  temporal: Client;
  /** The EVM chain of the prop firms (RPC URL, deployer key, confirmations). */
  chain: ChainConfig;
  /** `WEBHOOK_ALLOW_PRIVATE`: webhook deliveries may reach non-public targets (dev and tests only). */
  webhookAllowPrivate?: boolean;
  /** `WORKFLOW_HISTORY_BOUND`: events a long-lived workflow's run may reach before it continues as new. */
  historyBound: number;
}

export function createActivities(deps: ActivityDeps) {
  const oms = omsActivities(deps);
  /** First dispatch of an intent to the paper engine; idempotent. A fill of a challenge account nudges its rule watch. Timed as venue `paper`. */
  const dispatchPaper = (intentId: string) =>
    timedDispatch(deps.metrics, 'paper', async () => {
      const { outcome, challengeId } = await executePaper(deps, intentId, 'arrival');
      await nudgeChallenge(deps, challengeId, outcome);
      return outcome;
    });
  return {
    ...oms,
    ...batchActivities(deps),
    ...bracketActivities(deps),
    ...chaseActivities(deps),
    ...fundingActivities(deps),
    ...routedActivities(deps),
    ...custodyActivities(deps),
    ...venueOrderActivities(deps),
    ...venueAccountActivities(deps),
    ...firmDeployActivities(deps),
    ...challengeActivities(deps),
    ...payoutActivities(deps),
    ...transparencyActivities(deps),
    ...webhookActivities(deps),
    dispatchPaper,
    /**
     * The risk check, then, when it passes, the first dispatch to the paper engine: one activity, one
     * task round trip (issue 15; intents started since patch `local-order-steps`), and one transaction under
     * the account lock, so nothing changes the account between the check and the fill. Idempotent as both steps.
     */
    checkAndDispatchPaper: (intentId: string): Promise<{ risk: RiskVerdict; outcome?: DispatchOutcome }> =>
      timedDispatch(deps.metrics, 'paper', async () => {
        const { challengeId, ...checked } = await checkAndExecutePaper(deps, intentId);
        if (checked.outcome) await nudgeChallenge(deps, challengeId, checked.outcome);
        return checked;
      }),
    /**
     * A new paper intent's record, risk check and first dispatch to the paper engine: one local activity and ONE
     * transaction (issue 15; intents started since patch `paper-record-and-dispatch`). Answers what `recordIntent`
     * (`view`, the intent as recorded) and `checkAndDispatchPaper` answer; idempotent as they are.
     */
    recordAndDispatchPaper: (
      input: IntentWorkflowInput,
    ): Promise<{ view: IntentView; risk: RiskVerdict; outcome?: DispatchOutcome }> =>
      timedDispatch(deps.metrics, 'paper', async () => {
        const { challengeId, ...done } = await recordAndExecutePaper(deps, input);
        if (done.outcome) await nudgeChallenge(deps, challengeId, done.outcome);
        return done;
      }),
    /** A resting paper order woken by a mark crossing: fill or trigger if the mark still crosses; idempotent. */
    fillRestingPaper: async (intentId: string) => {
      const { outcome, challengeId } = await executePaper(deps, intentId, 'mark');
      await nudgeChallenge(deps, challengeId, outcome);
      return outcome;
    },
    /** Cancels an open paper working order; idempotent (a filled or canceled order is returned as is). */
    cancelPaper: (intentId: string) => cancelPaper(deps, intentId),
    /**
     * The worker's history bound (events; `WORKFLOW_HISTORY_BOUND`), read once per workflow chain as a local activity
     * by workflows/continue-as-new.ts `HistoryBound`, so the value is in the history and a replay sees the same.
     */
    workflowHistoryBound: async (): Promise<number> => deps.historyBound,
  };
}

/** The activity object type, for `proxyActivities<Activities>()`. */
export type Activities = ReturnType<typeof createActivities>;
