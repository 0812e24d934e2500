/** The latency floor of the bench: one workflow that runs one no-op activity. */
import { proxyActivities } from '@temporalio/workflow';

const { noop } = proxyActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '10 seconds' });

export async function noopWorkflow(): Promise<void> {
  await noop();
}
