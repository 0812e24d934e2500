/**
 * Maps Temporal Update failures to API errors: an `ApplicationFailure` whose `type` is one of our
 * stable codes (domain/errors.ts) becomes that `ApiError`; anything else is rethrown (→ 500).
 */
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowUpdateFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApiError, ERROR_STATUS, type ErrorCode } from '../domain/errors.js';

/**
 * Runs a workflow call and translates typed failures into ApiErrors. A workflow that is no longer
 * running (completed, so its intent is terminal) answers `whenClosed`.
 */
export async function viaWorkflow<T>(call: () => Promise<T>, whenClosed: ApiError): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw whenClosed;
    const cause = err instanceof WorkflowUpdateFailedError ? err.cause : err;
    if (cause instanceof ApplicationFailure && cause.type && cause.type in ERROR_STATUS) {
      throw new ApiError(cause.type as ErrorCode, cause.message);
    }
    throw err;
  }
}
