/**
 * Temporal Schedules the platform runs, created idempotently by {@link ensureSchedules} at worker
 * start (worker/main.ts) and by `npm run dev` (scripts/dev.ts) before it starts the worker:
 * `funding-<venue>`: the hourly funding run on paper perps (modules/accounts/workflows/funding.ts), at minute 0 of
 * every hour UTC; each run is workflow `funding-<venue>-<scheduled hour, RFC 3339>`, the id
 * `fundingWorkflowId` builds. Overlap SKIP (an hour still paying makes the next wait for its own
 * slot, never doubling), catch-up window 1 h (a worker or server down across the hour still pays it
 * once it is back, within the hour; an hour missed by longer is not paid). The run also writes
 * the hour's state snapshot of every account holding positions (`/accounts/{id}/state/history`).
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import {
  FUNDING_VENUES,
  fundingScheduleId,
  type FundingInput,
} from '../modules/accounts/workflows/funding.definitions.js';
import { fundingWorkflow } from '../modules/accounts/workflows/funding.js';

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
      action: {
        type: 'startWorkflow',
        workflowType: fundingWorkflow,
        workflowId: scheduleId,
        taskQueue: opts.taskQueue,
        args,
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  return scheduleId;
}

/**
 * Creates every platform schedule that does not exist yet (today: the hourly funding run of each
 * venue in `FUNDING_VENUES`) on `taskQueue`; an existing schedule is left as it is, so any number
 * of workers and restarts may call it. Returns the schedule ids.
 * @throws the client's error when Temporal is unreachable or refuses for another reason.
 */
export async function ensureSchedules(client: Client, taskQueue: string): Promise<string[]> {
  const ids: string[] = [];
  for (const venue of FUNDING_VENUES) ids.push(await ensureFundingSchedule(client, { taskQueue, venue }));
  return ids;
}
