/**
 * `agent-authorize-<agentId>` (docs/api.md §1 custody): hands the owner's verified authorisation of a
 * platform agent to its venue and records the agent `active`. Transport failures are retried;
 * the venue's refusal ends it with `venue_rejected` (the api answers 422 with the venue's reason).
 */
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../../activities/index.js';
import type { AgentAuthorizationResult } from '../activities/agents.js';
import type { AgentAuthorizationInput } from './agent-authorization.definitions.js';

const { submitAgentAuthorization } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    maximumInterval: '10 seconds',
    backoffCoefficient: 2,
    maximumAttempts: 6,
  },
});

export async function agentAuthorizationWorkflow(input: AgentAuthorizationInput): Promise<AgentAuthorizationResult> {
  try {
    return await submitAgentAuthorization(input.agentId, input.signature, input.keyId);
  } catch (err) {
    // Surface the activity's typed refusal as the workflow's own failure (its `type` is the API code).
    const cause = err instanceof ActivityFailure ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type)
      throw ApplicationFailure.create({ type: cause.type, message: cause.message, nonRetryable: true });
    throw ApplicationFailure.create({
      type: 'service_unavailable',
      message: `the venue did not take the authorisation: ${(err as Error).message}`,
      nonRetryable: true,
    });
  }
}
