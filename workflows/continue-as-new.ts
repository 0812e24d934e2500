/**
 * Workflow-side helpers shared by the long-lived workflows that continue as new with their state (the intent's working
 * order, firm-deploy, challenge, payout, chase, funding; docs/architecture.md "History bound").
 */
import {
  allHandlersFinished,
  condition,
  patched,
  proxyLocalActivities,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { HISTORY_BOUND } from './shared.definitions.js';

const { workflowHistoryBound } = proxyLocalActivities<Activities>({ startToCloseTimeout: '5 seconds' });

/**
 * Returns in a workflow task of its own (after a 1 ms timer) once no Update or Signal handler is running,
 * so the run can continue as new: an Update completing in the same workflow task as the continue-as-new
 * may reach the new run a second time (temporalio/temporal#6375). Commands: one or more 1 ms timers.
 */
export async function readyToContinueAsNew(): Promise<void> {
  for (;;) {
    await sleep(1);
    if (allHandlersFinished()) return;
    await condition(allHandlersFinished);
  }
}

/**
 * When a run continues as new: once its history holds `bound` events, or when Temporal suggests it
 * (`continueAsNewSuggested`: 4,096 events or 4 MB on the server's defaults). The bound is the input's
 * `historyBound` (carried from run to run, {@link carried}), else the worker's `WORKFLOW_HISTORY_BOUND`, read
 * by the local activity `workflowHistoryBound` the first time the history reaches {@link HISTORY_BOUND}.min
 * events (a short run never reads it; the answer is a marker in the history, so a replay sees the same).
 * Either is raised to that floor. Behind the workflow's patch, consulted when this is created: a run from
 * before it never continues on the bound ({@link reached} stays false).
 *
 * Callers test {@link reached} first and await {@link check} only when it holds, so a run below the floor,
 * and every run from before the patch, takes no extra turn.
 */
export class HistoryBound {
  private readonly on: boolean;
  private bound: number | undefined;

  /** `patchId`: the workflow's patch (one per workflow); `given`: the input's `historyBound` (events), if any. */
  constructor(patchId: string, given: number | undefined) {
    this.on = patched(patchId);
    this.bound = given === undefined ? undefined : Math.max(given, HISTORY_BOUND.min);
  }

  /** The run may continue now (synchronous, for condition predicates); while the worker's bound is unread, its floor counts. */
  get reached(): boolean {
    const info = workflowInfo();
    return this.on && (info.continueAsNewSuggested || info.historyLength >= (this.bound ?? HISTORY_BOUND.min));
  }

  /** The run continues as new now; reads the worker's bound first when {@link reached} holds on the floor only. */
  async check(): Promise<boolean> {
    if (this.reached && this.bound === undefined && !workflowInfo().continueAsNewSuggested)
      this.bound = Math.max(await workflowHistoryBound(), HISTORY_BOUND.min);
    return this.reached;
  }

  /** What the continued run's input carries: `{ historyBound }` once known (so it is not read again), else nothing. */
  carried(): { historyBound?: number } {
    return this.bound === undefined ? {} : { historyBound: this.bound };
  }
}
