/**
 * Shared by api/ and workflows/: task queues, workflow-id builders, Signal/Query/Update
 * definitions and search-attribute keys (docs/architecture.md "Temporal model"). Imports only
 * `@temporalio/workflow` definitions, so both sides can load it.
 */
import { defineSearchAttributeKey, type SearchAttributePair } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { IntentState, IntentView } from '../domain/oms/intent.js';
import type { IntentRecordInput } from '../activities/oms.js';

/** Default task queue of the OMS workflows and activities (overridable: TEMPORAL_TASK_QUEUE). */
export const OMS_TASK_QUEUE = 'oms';

/** Workflow id of an order intent: `intent-<intentId>` (a business id, never random). */
export const intentWorkflowId = (intentId: string) => `intent-${intentId}`;

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
export function searchAttributes(of: { tenantId: string; accountId: string; venue?: string }, intentState?: IntentState): SearchAttributePair[] {
  return [
    { key: SA.tenantId, value: of.tenantId },
    { key: SA.accountId, value: of.accountId },
    ...(of.venue ? [{ key: SA.venue, value: of.venue }] : []),
    ...(intentState ? [{ key: SA.intentState, value: intentState }] : []),
  ];
}

/** Input of the intent workflow: the validated compose request, recorded by its first activity. */
export type IntentWorkflowInput = IntentRecordInput;

/**
 * Update sent with the workflow's start (update-with-start, the early-return shape): answers
 * once the intent is recorded, so compose returns `intentId` synchronously while dispatch goes on.
 */
export const composeUpdate = defineUpdate<IntentView>('compose');

/** How an intent workflow ended. */
export interface IntentOutcome {
  intentId: string;
  state: IntentState;
  reason?: string;
}

/**
 * Signal from the mark feed's trigger watcher: the canonical mark crossed this resting order's
 * price or trigger. Idempotent: the workflow re-checks against the latest mark in an activity.
 */
export const markCrossedSignal = defineSignal<[{ mark: string; ts: number }]>('markCrossed');

/** Query: the intent's current state as the workflow knows it. */
export const intentStateQuery = defineQuery<IntentState>('intentState');

/** What a successful cancel answers (docs/api.md §4.4 cancel; the body is ours). */
export interface CancelResult {
  intentId: string;
  venueOrderId: string | null;
  state: IntentState;
}

/**
 * Update: cancel the intent's working order. The validator refuses, with an ApplicationFailure of
 * type `invalid_state`, an intent that has no working order (not yet dispatched, filled, canceled).
 */
export const cancelUpdate = defineUpdate<CancelResult>('cancel');

/** Workflow id of a flatten or reverse batch: `batch-<batchId>`. */
export const batchWorkflowId = (batchId: string) => `batch-${batchId}`;

/** A flatten (every position of the account) or a reverse (one symbol) request. */
export interface BatchInput {
  batchId: string;
  kind: 'flatten' | 'reverse';
  tenantId: string;
  accountId: string;
  credentialId: string;
  /** Reverse only: the venue-suffixed symbol whose position flips. */
  symbol?: string;
}

/** One leg, in order: cancels, then closes, then opens (docs/api.md §3.1). */
export interface BatchLeg {
  n: number;
  action: 'cancel' | 'close' | 'open';
  intentId: string;
  symbol: string;
  /** For close and open legs: the intent the leg composes (a market order). */
  intent?: IntentRecordInput;
}

/** The planned batch, as flatten and reverse answer it. */
export interface BatchPlan {
  batchId: string;
  kind: BatchInput['kind'];
  accountId: string;
  legs: BatchLeg[];
}

/** How each leg ended. */
export interface BatchOutcome {
  batchId: string;
  legs: { n: number; intentId: string; action: BatchLeg['action']; state: IntentState }[];
}

/** Update sent with the batch's start: answers the planned legs (early return). */
export const planUpdate = defineUpdate<BatchPlan>('plan');

/** What `modify` answers: the replaced intent and its replacement (docs/api.md §4.4: "resolves a new intent id"). */
export interface ModifyResult {
  replacedIntentId: string;
  intent: IntentView;
}

/**
 * Update: cancel-replace. Cancels the working order, records the replacement (the API built and
 * validated it, with a new intent id) and starts its workflow `intent-<newId>`, which outlives this
 * one. Refused with `invalid_state` when there is no working order.
 */
export const modifyUpdate = defineUpdate<ModifyResult, [IntentRecordInput]>('modify');

/**
 * What `sign-result` answers (docs/api.md §3.1): dispatched (`resting` when a working order rests,
 * `inlineFill` when it filled at once), or `ok: false` when the venue or the risk check refused it.
 */
export type SignResult =
  | { ok: true; intentId: string; venueOrderId: string | null; resting: boolean; inlineFill?: { qty: string; avgPrice: string } }
  | { ok: false; intentId: string; error: string; detail: string };

/**
 * Update: the caller's signature of an `intent_pending` intent (`{ signature }` of the EIP-712
 * typed data in the compose response). The validator refuses any other state (`invalid_state`);
 * a signature that does not recover the credential's signer is refused (`invalid_signature`) and
 * the intent stays pending.
 */
export const signResultUpdate = defineUpdate<SignResult, [{ signature: string }]>('signResult');

/** Workflow id of a bracket: `bracket-<bracketId>`; attach uses the parent intent id as bracket id. */
export const bracketWorkflowId = (bracketId: string) => `bracket-${bracketId}`;

/** A take-profit / stop-loss pair protecting a parent intent's fill, or an open position. */
export interface BracketInput {
  bracketId: string;
  tenantId: string;
  accountId: string;
  credentialId: string;
  venue: string;
  symbol: string;
  /** Attach: the parent intent; attach-to-position: null (protects the position as it is). */
  parentIntentId: string | null;
  /** Trigger prices, USD decimal strings; at least one. */
  tpPrice: string | null;
  slPrice: string | null;
}

/** A bracket as the API shows it. `staged` while the parent is unfilled; legs arm on its fill. */
export interface BracketView {
  bracketId: string;
  accountId: string;
  parentIntentId: string | null;
  state: 'staged' | 'armed' | 'closed' | 'canceled';
  staged: boolean;
  symbol: string;
  tpPrice: string | null;
  slPrice: string | null;
  /** The working orders of the armed legs (reduce-only take_profit and stop). */
  legs: { tp: string | null; sl: string | null };
  /** Which leg filled, once one did (the other is canceled: OCO). */
  filledLeg: 'tp' | 'sl' | null;
}

/** Update sent with the bracket's start: answers the bracket (staged or armed). */
export const attachUpdate = defineUpdate<BracketView>('attach');
/** Update: move the legs' trigger prices (cancel-replace of an armed leg). `invalid_state` once closed. */
export const moveBracketUpdate = defineUpdate<BracketView, [{ tpPrice?: string; slPrice?: string }]>('moveBracket');
/** Query: the bracket now. */
export const bracketQuery = defineQuery<BracketView>('bracket');

/** Workflow id of a chase: `chase-<intentId>` (the intent it starts from). */
export const chaseWorkflowId = (intentId: string) => `chase-${intentId}`;

/** A chase of a working limit order toward the touch (best bid for a buy, best ask for a sell). */
export interface ChaseInput {
  chaseId: string;
  intentId: string;
  /** Most cancel-replaces before the chase gives up (the last order keeps working). */
  maxAttempts: number;
  /** How often the touch is looked at, ms. */
  intervalMs: number;
}

/** A chase as the API shows it. */
export interface ChaseView {
  chaseId: string;
  /** The order working now (each replace resolves a new intent id). */
  currentIntentId: string;
  attempts: number;
  maxAttempts: number;
  state: 'chasing' | 'filled' | 'exhausted' | 'ended';
}

/** Update sent with the chase's start: answers the chase (early return). */
export const chaseUpdate = defineUpdate<ChaseView>('chase');
/** Query: the chase now. */
export const chaseQuery = defineQuery<ChaseView>('chaseState');

/**
 * Workflow id of an hourly funding run: `funding-<venue>-<hour>`, the hour in RFC 3339 UTC without
 * milliseconds (`funding-paper-2026-11-22T10:00:00Z`; `hourIso` may be any ISO form of it). A
 * Temporal Schedule whose action id is `funding-<venue>` gets exactly this id (the Schedule appends
 * `-<scheduled time, RFC 3339>`), so a manual start of a scheduled hour is refused as a duplicate
 * while the scheduled run is open; a later rerun pays nothing twice (`funding_payments` key).
 */
export const fundingWorkflowId = (venue: string, hourIso: string) => `funding-${venue}-${new Date(hourIso).toISOString().replace(/\.000Z$/, 'Z')}`;
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

/** Workflow id of an agent's authorisation hand-off to its venue: `agent-authorize-<agentId>`. */
export const agentAuthorizationWorkflowId = (agentId: string) => `agent-authorize-${agentId}`;

/** Input of `agentAuthorizationWorkflow`: the agent, the owner's signature, and (Kalshi) the key id the venue assigned. */
export interface AgentAuthorizationInput {
  agentId: string;
  signature: string;
  keyId?: string;
}

/** Workflow id of one refresh of an account's venue order list: `venue-orders-<accountId>-<venue>` (a concurrent read attaches to the running one). */
export const venueOrdersSyncWorkflowId = (accountId: string, venue: string) => `venue-orders-${accountId}-${venue}`;

// ---- Prop firm (issue 6; docs/api.md §1 custody rules, §3.5, §4.8) ----------------------------------

/** Workflow id of a firm's deployment and its go-live/pause lifecycle: `firm-deploy-<firmId>`. */
export const firmDeployWorkflowId = (firmId: string) => `firm-deploy-${firmId}`;

/** Input of `firmDeployWorkflow`. `pollMs`: receipt polling interval (ms; default 1000). */
export interface FirmDeployInput {
  tenantId: string;
  firmId: string;
  pollMs?: number;
}

/** The steps of a firm deploy, in order; `live` and `paused` follow by Update. */
export const FIRM_DEPLOY_STEPS = ['signing', 'broadcast', 'confirming', 'verifying', 'deployed', 'live', 'paused', 'failed'] as const;
export type FirmDeployStep = (typeof FIRM_DEPLOY_STEPS)[number];

/** What the `firmDeploy` Query answers: the current step, the transaction hashes and the instance. */
export interface FirmDeployStatus {
  firmId: string;
  step: FirmDeployStep;
  /** The platform deployer (gas only; never the owner). */
  deployer: string | null;
  nonce: number | null;
  txHashes: { deploy: string | null };
  instanceAddress: string | null;
  rulesHash: string | null;
  confirmations: number;
  blockNumber: string | null;
  gasUsed: string | null;
  error: string | null;
}

/** Query: the deploy's current step and transaction hashes. */
export const firmDeployQuery = defineQuery<FirmDeployStatus>('firmDeploy');

/**
 * Update: `live` (from `deployed` or `paused`) or `paused` (from `live`). The validator refuses any
 * other transition with an ApplicationFailure of type `invalid_state`.
 */
export const firmStatusUpdate = defineUpdate<FirmDeployStatus, [{ to: 'live' | 'paused' }]>('firmStatus');

/** Workflow id of a prop account's challenge: `challenge-<propAccountId>`. */
export const challengeWorkflowId = (propAccountId: string) => `challenge-${propAccountId}`;

/** Input of `challengeWorkflow`. `pollMs`: deposit and rule evaluation interval (ms; default 1000). */
export interface ChallengeInput {
  tenantId: string;
  propAccountId: string;
  pollMs?: number;
}

/** What the `challenge` Query answers. */
export interface ChallengeStatus {
  propAccountId: string;
  status: 'pending_payment' | 'active' | 'passed' | 'breached' | 'funded' | 'suspended';
  depositTxHash: string | null;
  breachReason: string | null;
  payoutCeilingUsd: string | null;
  flattenBatchId: string | null;
}

/** Query: the challenge's status. */
export const challengeQuery = defineQuery<ChallengeStatus>('challenge');

/** Signal: evaluate the rules now (sent after a fill of the prop account; idempotent). */
export const evaluateSignal = defineSignal('evaluate');

/** Workflow id of a payout approval: `payout-<payoutId>`. */
export const payoutWorkflowId = (payoutId: string) => `payout-${payoutId}`;

/** Input of `payoutWorkflow`. `pollMs`: on-chain execution polling interval (ms; default 2000, doubling to 60 s). */
export interface PayoutInput {
  tenantId: string;
  payoutId: string;
  pollMs?: number;
}

/** What the `payout` Query and the `authorizePayout` Update answer. */
export interface PayoutStatus {
  payoutId: string;
  status: 'requested' | 'authorized' | 'executed' | 'rejected';
  /** The Safe transaction the owners sign (EIP-712 typed data), once prepared. */
  safeTx: unknown;
  safeTxHash: string | null;
  signers: string[];
  executedTxHash: string | null;
}

/** Query: the payout's status and what to sign. */
export const payoutQuery = defineQuery<PayoutStatus>('payout');

/**
 * Update: the operator's multisig authorisation `{ signatures }` (concatenated 65-byte owner
 * signatures of the Safe transaction). The validator refuses it unless the payout awaits one
 * (`invalid_state`); a signature set that does not verify on-chain is refused with
 * `payout_authorization_invalid` and the payout keeps waiting.
 */
export const authorizePayoutUpdate = defineUpdate<PayoutStatus, [{ signatures: string }]>('authorizePayout');

/** Server-side cache window of the transparency routes (docs/api.md §4.9, §8: 30 s). */
export const TRANSPARENCY_CACHE_MS = 30_000;

/** Workflow id of one transparency read: `transparency-<all | firmId>-<window start, epoch ms>`. */
export const transparencyWorkflowId = (scope: string, windowStartMs: number) => `transparency-${scope}-${windowStartMs}`;

// ---- Webhooks (docs/api.md §6.4; issue 7, part) -----------------------------------------------------

/** Workflow id of one event's delivery to one endpoint: `webhook-<endpointId>-<eventId>`. */
export const webhookWorkflowId = (endpointId: string, eventId: string) => `webhook-${endpointId}-${eventId}`;

/**
 * Input of `webhookWorkflow`. Durations are inputs (configuration in production, milliseconds in
 * tests): the first retry after `initialBackoffMs`, doubling up to `maxBackoffMs`; once the next
 * wait would pass `maxBackoffMs` the endpoint is disabled. `timeoutMs`: a slower answer is a failure.
 */
export interface WebhookInput {
  tenantId: string;
  endpointId: string;
  eventId: string;
  initialBackoffMs: number;
  maxBackoffMs: number;
  timeoutMs: number;
}

/** How a delivery ended. */
export interface WebhookOutcome {
  eventId: string;
  status: 'delivered' | 'failed' | 'skipped';
  attempts: number;
}
