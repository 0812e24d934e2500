/**
 * The one way an OMS command starts its workflow and gets its first answer: Update-with-Start on the
 * business id (docs/architecture.md "Workflows"), bounded by {@link viaWorkflow}.
 */
import { WithStartWorkflowOperation, type WorkflowIdConflictPolicy } from '@temporalio/client';
import type { SearchAttributePair, UpdateDefinition, Workflow } from '@temporalio/common';
import type { ApiDeps } from '../../../api/context.js';
import type { ApiError } from '../../../domain/errors.js';
import { viaWorkflow } from '../../../api/temporal-errors.js';

/** Where and how to start the workflow: its business id, its input, what a running one with that id means. */
export interface StartOf<W extends Workflow> {
  workflowId: string;
  args: Parameters<W>;
  /** `USE_EXISTING` (a retry attaches to the running workflow) or `FAIL` (a second start is refused). */
  conflict: WorkflowIdConflictPolicy;
  searchAttributes: SearchAttributePair[];
}

/**
 * Starts `workflow` (unless one with the id runs and `conflict` is `USE_EXISTING`) on the worker task queue and
 * runs `update` on it; resolves the Update's result.
 * @throws as {@link viaWorkflow}: `whenClosed` when the workflow already ended, `503 service_unavailable`, a
 * workflow's typed failure as its ApiError; `WorkflowExecutionAlreadyStartedError` when `conflict` is `FAIL`.
 */
export function updateWithStart<W extends Workflow, R>(
  deps: ApiDeps,
  update: UpdateDefinition<R, []>,
  workflow: W,
  start: StartOf<W>,
  whenClosed: ApiError,
): Promise<R> {
  return viaWorkflow(
    () =>
      deps.temporal.workflow.executeUpdateWithStart(update, {
        startWorkflowOperation: new WithStartWorkflowOperation(workflow, {
          workflowId: start.workflowId,
          taskQueue: deps.config.temporal.taskQueue,
          args: start.args,
          workflowIdConflictPolicy: start.conflict,
          typedSearchAttributes: start.searchAttributes,
          // `args` is typed by StartOf<W>; the SDK's conditional on a generic W cannot be resolved here.
        } as never),
      }),
    whenClosed,
  );
}
