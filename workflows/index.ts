/** The workflow bundle entry: every workflow the worker runs. */
export { intentWorkflow } from './intent.js';
export { batchWorkflow } from './batch.js';
export { bracketWorkflow } from './bracket.js';
export { chaseWorkflow } from './chase.js';
export { fundingWorkflow } from './funding.js';
export { agentAuthorizationWorkflow } from './agent-authorization.js';
export { venueOrdersSyncWorkflow } from './venue-orders.js';
export { firmDeployWorkflow } from './firm-deploy.js';
export { challengeWorkflow } from './challenge.js';
export { payoutWorkflow } from './payout.js';
export { transparencyWorkflow } from './transparency.js';
export { webhookWorkflow } from './webhook.js';
