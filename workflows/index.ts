/** The workflow bundle entry: every workflow the worker runs. */
export { intentWorkflow } from '../modules/oms/workflows/intent.js';
export { batchWorkflow } from '../modules/oms/workflows/batch.js';
export { bracketWorkflow } from '../modules/oms/workflows/bracket.js';
export { chaseWorkflow } from '../modules/oms/workflows/chase.js';
export { fundingWorkflow } from '../modules/accounts/workflows/funding.js';
export { agentAuthorizationWorkflow } from '../modules/custody/workflows/agent-authorization.js';
export { venueOrdersSyncWorkflow } from '../modules/oms/workflows/venue-orders.js';
export { venueAccountWorkflow } from '../modules/accounts/workflows/venue-account.js';
export { firmDeployWorkflow } from '../modules/prop/workflows/firm-deploy.js';
export { challengeWorkflow } from '../modules/prop/workflows/challenge.js';
export { payoutWorkflow } from '../modules/prop/workflows/payout.js';
export { transparencyWorkflow } from '../modules/prop/workflows/transparency.js';
export { webhookWorkflow } from '../modules/webhooks/workflows/webhook.js';
