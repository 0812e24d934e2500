/**
 * The workflow task timeout of the workflows the platform starts (`WORKFLOW_TASK_TIMEOUT_MS`, README "Configuration"):
 * how long the Temporal server waits for a worker's answer to a workflow task before it hands the task to another
 * worker. A worker that dies mid-task (a compose's record and dispatch run inside one, modules/oms/workflows/intent-run.ts)
 * holds its workflows for that long; Temporal's default is 10 s. Set by a client interceptor on every start the api's
 * and the worker's clients make (start, signal-with-start, update-with-start); a start that names its own timeout
 * keeps it. Child workflows and continued runs are started by the workflows themselves and keep Temporal's default.
 */
import type { ClientInterceptors, WorkflowClientInterceptor } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';

/** A client interceptor that starts every workflow with a workflow task timeout of `ms` (milliseconds). */
export function workflowTaskTimeoutInterceptor(ms: number): WorkflowClientInterceptor {
  const workflowTaskTimeout = msToTs(ms);
  const timed = <O extends { workflowTaskTimeout?: unknown }>(options: O): O => ({
    ...options,
    workflowTaskTimeout: options.workflowTaskTimeout ?? workflowTaskTimeout,
  });
  return {
    start: (input, next) => next({ ...input, options: timed(input.options) }),
    startWithDetails: (input, next) => next({ ...input, options: timed(input.options) }),
    signalWithStart: (input, next) => next({ ...input, options: timed(input.options) }),
    startUpdateWithStart: (input, next) => next({ ...input, workflowStartOptions: timed(input.workflowStartOptions) }),
  };
}

/**
 * `interceptors` (e.g. tracing's, telemetry/temporal.ts) with the task timeout interceptor first when `ms` is set
 * (null: Temporal's default, `interceptors` as given). Workflow interceptors are a list (the SDK's deprecated factory
 * object is not taken).
 * @throws Error when `interceptors.workflow` is the deprecated factory object.
 */
export function withWorkflowTaskTimeout(
  interceptors: ClientInterceptors | undefined,
  ms: number | null,
): ClientInterceptors | undefined {
  if (ms === null) return interceptors;
  const others = interceptors?.workflow ?? [];
  if (!Array.isArray(others)) throw new Error('withWorkflowTaskTimeout: workflow interceptors must be a list');
  return { ...interceptors, workflow: [workflowTaskTimeoutInterceptor(ms), ...others] };
}
