/**
 * Workflow-side helper shared by the long-lived workflows that continue as new with their status
 * (modules/prop/workflows/firm-deploy.ts, payout.ts; docs/architecture.md "Temporal model").
 */
import { allHandlersFinished, condition, sleep } from '@temporalio/workflow';

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
