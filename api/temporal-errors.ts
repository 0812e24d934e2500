/**
 * Maps Temporal Update failures to API errors: an `ApplicationFailure` whose `type` is one of our
 * stable codes (domain/errors.ts) becomes that `ApiError`; anything else is rethrown (→ 500).
 */
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError, WorkflowUpdateFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApiError, ERROR_STATUS, type ErrorCode } from '../domain/errors.js';

/** How long an Update may take to answer before the api gives up with 503 (the work goes on), ms. */
export const WORKFLOW_ANSWER_MS = 15_000;

/**
 * Runs a workflow call and translates typed failures into ApiErrors. A workflow that is no longer
 * running (completed, so its intent is terminal) answers `whenClosed`. No answer within
 * {@link WORKFLOW_ANSWER_MS} (no worker running?) is `503 service_unavailable`: the request is not
 * lost, and a retry with the same `Idempotency-Key` attaches to the same workflow.
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
    const cause = err instanceof WorkflowUpdateFailedError || err instanceof WorkflowFailedError ? err.cause : err;
    if (cause instanceof ApplicationFailure && cause.type && cause.type in ERROR_STATUS) {
      throw new ApiError(cause.type as ErrorCode, cause.message);
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
