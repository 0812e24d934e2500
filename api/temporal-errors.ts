/**
 * Maps Temporal Update failures to API errors: an `ApplicationFailure` whose `type` is one of our
 * stable codes (domain/errors.ts) becomes that `ApiError`; anything else is rethrown (→ 500).
 */
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError, WorkflowUpdateFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApiError, ERROR_STATUS, type ErrorCode } from '../domain/errors.js';

/** How long an Update may take to answer before the api gives up with 503 (the work goes on), ms. */
export const WORKFLOW_ANSWER_MS = 15_000;

/** The documented `503` of a route that waits on a workflow through {@link viaWorkflow}. */
export const WORKFLOW_UNAVAILABLE = {
  description:
    '`service_unavailable`: the workflow did not answer within 15 s (no worker running?) or is recovering from a failed task; the request is not lost: retry with the same Idempotency-Key',
};

/**
 * Whether `err` (or an error in its `cause` chain) is the Temporal server refusing an Update, or an
 * Update-with-Start, because the workflow's last task failed or timed out and is being retried (a worker died
 * mid-task): the workflow recovers on its own once a worker completes the task, so the call is worth
 * retrying. The server gives this refusal no code of its own (gRPC FAILED_PRECONDITION), only its message.
 */
export function isWorkflowTaskRecovering(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause)
    if (e.message.includes('Workflow Task in failed state')) return true;
  return false;
}

/**
 * Runs a workflow call and translates typed failures into ApiErrors. A workflow that is no longer
 * running (completed, so its intent is terminal) answers `whenClosed`. No answer within
 * {@link WORKFLOW_ANSWER_MS} (no worker running?), or the server refusing the Update while the
 * workflow's task is retried after a worker died ({@link isWorkflowTaskRecovering}), is
 * `503 service_unavailable`: the request is not lost, and a retry with the same `Idempotency-Key`
 * attaches to the same workflow.
 */
export async function viaWorkflow<T>(call: () => Promise<T>, whenClosed: ApiError): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ApiError(
            'service_unavailable',
            `no answer from the workflow within ${WORKFLOW_ANSWER_MS / 1000} s; retry with the same Idempotency-Key`,
          ),
        ),
      WORKFLOW_ANSWER_MS,
    );
  });
  try {
    return await Promise.race([call(), deadline]);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (err instanceof WorkflowNotFoundError) throw whenClosed;
    if (isWorkflowTaskRecovering(err))
      throw new ApiError(
        'service_unavailable',
        'the workflow is recovering from a failed task (a worker stopped mid-task); retry with the same Idempotency-Key',
      );
    const cause = err instanceof WorkflowUpdateFailedError || err instanceof WorkflowFailedError ? err.cause : err;
    if (cause instanceof ApplicationFailure && cause.type && cause.type in ERROR_STATUS) {
      throw new ApiError(cause.type as ErrorCode, cause.message);
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
