/** api/temporal-errors.ts: how a workflow call's failures reach the trader. */
import { describe, expect, it } from 'vitest';
import { ServiceError } from '@temporalio/client';
import { ApiError } from '../../domain/errors.js';
import { viaWorkflow } from '../../api/temporal-errors.js';

/** The gRPC error the client raises, as the chaos run met it (code 9, FAILED_PRECONDITION). */
const grpcRefusal = (what: string) =>
  Object.assign(new Error(`9 FAILED_PRECONDITION: ${what}`), {
    code: 9,
    details: 'Unable to perform workflow execution update due to Workflow Task in failed state.',
  });

describe('viaWorkflow', () => {
  const closed = new ApiError('invalid_state', 'closed');

  it.each([
    [
      'an Update',
      new ServiceError('Workflow Update failed', {
        cause: grpcRefusal('Unable to perform workflow execution update due to Workflow Task in failed state.'),
      }),
    ],
    [
      'an Update-with-Start',
      Object.assign(new Error('Unable to perform workflow execution update due to Workflow Task in failed state.'), {
        code: 9,
      }),
    ],
  ])(
    'answers 503 service_unavailable (retry) when the server refuses %s while the workflow task recovers',
    async (_, err) => {
      const answer = viaWorkflow(() => Promise.reject(err), closed);
      await expect(answer).rejects.toBeInstanceOf(ApiError);
      await expect(answer).rejects.toMatchObject({ code: 'service_unavailable' });
    },
  );

  it('rethrows any other failure (a 500)', async () => {
    const other = new ServiceError('Workflow Update failed', { cause: grpcRefusal('something else') });
    await expect(viaWorkflow(() => Promise.reject(other), closed)).rejects.toBe(other);
  });
});
