/**
 * Temporal Schedules the platform runs (created idempotently at worker start and by `npm run dev`):
 * `funding-<venue>`: the hourly funding run on paper perps (workflows/funding.ts), at minute 0 of
 * every hour UTC. Overlap SKIP (an hour still paying makes the next wait for its own slot, never
 * doubling), catch-up window 1 h (a worker or server down across the hour still pays it once it
 * is back, within the hour).
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { fundingScheduleId, type FundingInput } from '../workflows/definitions.js';

/** Options of {@link ensureFundingSchedule}. */
export interface FundingScheduleOptions {
  taskQueue: string;
  venue?: string;
  /** Schedule id (default `funding-<venue>`; tests use their own). */
  scheduleId?: string;
  /** Limit the runs to one tenant (tests); default every tenant. */
  tenantId?: string | null;
}

/**
 * Creates the hourly funding schedule, or leaves the existing one as it is (a second call, or a
 * second worker, is a no-op). Returns the schedule id.
 */
export async function ensureFundingSchedule(client: Client, opts: FundingScheduleOptions): Promise<string> {
  const venue = opts.venue ?? 'paper';
  const scheduleId = opts.scheduleId ?? fundingScheduleId(venue);
  const args: [FundingInput] = [{ venue, tenantId: opts.tenantId ?? null }];
  try {
    await client.schedule.create({
      scheduleId,
      spec: { calendars: [{ minute: 0, comment: 'hourly funding, UTC' }] },
      action: { type: 'startWorkflow', workflowType: 'fundingWorkflow', workflowId: scheduleId, taskQueue: opts.taskQueue, args },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  return scheduleId;
}
