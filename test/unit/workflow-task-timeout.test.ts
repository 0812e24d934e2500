/**
 * The workflow task timeout of the workflows the platform starts (workflow-task-timeout.ts, `WORKFLOW_TASK_TIMEOUT_MS`):
 * unset, starts keep Temporal's default; set, every kind of start carries it unless the start names its own; values
 * outside 1-60 s are refused. test/workflows/crash-points.test.ts shows its effect: a compose whose worker died answers
 * once the shorter timeout has passed.
 */
import { describe, expect, it } from 'vitest';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { loadConfig } from '../../config.js';
import { withWorkflowTaskTimeout } from '../../workflow-task-timeout.js';

/** The least a configuration needs (test/unit/config.test.ts). */
const BASE = {
  DATABASE_URL: 'postgres://platform:db-password-1@db.internal:5432/platform',
  JWT_SECRET: 'a-production-secret-of-forty-characters!!',
};

/** The timeout (seconds, nanos) a start passed through `interceptor` carries. */
async function passed(interceptor: WorkflowClientInterceptor, own?: { seconds: number; nanos: number }) {
  const seen: unknown[] = [];
  const options = { taskQueue: 'q', workflowId: 'w', ...(own && { workflowTaskTimeout: own }) } as never;
  const next = async (input: { options?: unknown; workflowStartOptions?: unknown }) => {
    seen.push(input.options ?? input.workflowStartOptions);
    return undefined as never;
  };
  await interceptor.start!({ workflowType: 'x', headers: {}, options }, next);
  await interceptor.signalWithStart!(
    { workflowType: 'x', headers: {}, options, signalName: 's', signalArgs: [] },
    next,
  );
  await interceptor.startUpdateWithStart!(
    { workflowType: 'x', workflowStartOptions: options, workflowStartHeaders: {} } as never,
    next,
  );
  return seen.map((o) => {
    const t = (o as { workflowTaskTimeout?: { seconds: unknown; nanos: unknown } }).workflowTaskTimeout;
    return t && { seconds: Number(t.seconds), nanos: Number(t.nanos ?? 0) };
  });
}

describe('WORKFLOW_TASK_TIMEOUT_MS', () => {
  it('unset: no interceptor, Temporal’s default; 1-60 s accepted, outside refused', () => {
    expect(loadConfig(BASE).workflowTaskTimeoutMs).toBeNull();
    expect(withWorkflowTaskTimeout(undefined, null)).toBeUndefined();
    expect(loadConfig({ ...BASE, WORKFLOW_TASK_TIMEOUT_MS: '2500' }).workflowTaskTimeoutMs).toBe(2500);
    for (const refused of ['999', '60001', 'soon'])
      expect(() => loadConfig({ ...BASE, WORKFLOW_TASK_TIMEOUT_MS: refused })).toThrow(/WORKFLOW_TASK_TIMEOUT_MS/);
  });

  it('set: start, signal-with-start and update-with-start carry it; a start naming its own keeps that; other interceptors follow', async () => {
    const other: WorkflowClientInterceptor = {};
    const interceptors = withWorkflowTaskTimeout({ workflow: [other] }, 2500)!;
    const [timeout, kept] = interceptors.workflow as WorkflowClientInterceptor[];
    expect(kept).toBe(other);
    expect(await passed(timeout)).toEqual(Array(3).fill({ seconds: 2, nanos: 500_000_000 }));
    expect(await passed(timeout, { seconds: 7, nanos: 0 })).toEqual(Array(3).fill({ seconds: 7, nanos: 0 }));
  });
});
