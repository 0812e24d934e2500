/**
 * The webhook dispatcher (docs/api.md §6.4): turns new account events into delivery workflows
 * `webhook-<endpointId>-<eventId>`, one per enabled endpoint whose `events` take the event's kind
 * (`*` takes all). It runs in every worker process, woken by `LISTEN account_events` and at least
 * every `intervalMs`. Each round locks the enabled endpoints (`for update skip locked`, so two
 * workers never take the same endpoint at once), starts the workflows of up to 500 events past
 * each endpoint's cursor `(last_xact_id, last_event_id)`, and moves that cursor in the same
 * transaction. Events are read in `(xact_id, id)` order and only from transactions older than every
 * one still running (`pg_snapshot_xmin`), so an event whose transaction took a lower id but commits
 * later is never passed over (migration EventCommitOrder); it waits for the next round. A start that
 * finds the workflow id already used is skipped (at-least-once, never twice from here). A disabled
 * endpoint's cursor stays: re-enabled, it receives what happened meanwhile.
 */
import pg from 'pg';
import type { Logger } from 'pino';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { webhookEventId } from '../modules/webhooks/activities/delivery.js';
import { searchAttributes } from '../workflows/shared.definitions.js';
import { webhookWorkflowId, type WebhookInput } from '../modules/webhooks/workflows/webhook.definitions.js';
import { webhookWorkflow } from '../modules/webhooks/workflows/webhook.js';

/** Durations of every delivery (ms; webhook.definitions.ts). */
export interface WebhookTiming {
  initialBackoffMs: number;
  maxBackoffMs: number;
  timeoutMs: number;
}

/** Whether an endpoint subscribed to `events` takes an event of `kind`. */
export const takes = (events: string[], kind: string) => events.includes('*') || events.includes(kind);

/** Starts the dispatcher; `stop()` ends it after the round in flight. */
export async function startWebhookDispatcher(opts: {
  databaseUrl: string;
  temporal: Client;
  taskQueue: string;
  timing: WebhookTiming;
  intervalMs: number;
  logger: Logger;
}): Promise<{ stop(): Promise<void> }> {
  const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 2 });
  const listener = new pg.Client({ connectionString: opts.databaseUrl });
  pool.on('error', (err) => opts.logger.error({ err }, 'webhook dispatcher pool error'));
  listener.on('error', (err) => opts.logger.error({ err }, 'webhook dispatcher listener failed; polling only'));
  await listener.connect();

  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  async function round(): Promise<void> {
    const db = await pool.connect();
    // A checked-out client has no 'error' listener of the pool's: a connection lost mid-round (PostgreSQL
    // restarting) would be an unhandled 'error' event, a crash; the round's query rejects instead.
    const lost = (err: Error) => opts.logger.warn({ err }, 'webhook dispatch connection lost');
    db.on('error', lost);
    try {
      await db.query('begin');
      const { rows: endpoints } = await db.query<{
        id: string;
        tenant_id: string;
        events: string[];
        last_event_id: string;
        last_xact_id: string;
      }>(
        `select id, tenant_id, events, last_event_id, last_xact_id::text from webhook_endpoints where status = 'enabled' order by id for update skip locked`,
      );
      for (const ep of endpoints) {
        const { rows: events } = await db.query<{
          id: string;
          kind: string;
          account_id: string;
          seq: number;
          xact_id: string;
        }>(
          `select id::text, kind, account_id, seq, xact_id::text from account_events
            where tenant_id = $1 and (xact_id, id) > ($2::bigint, $3::bigint)
              and xact_id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
            order by xact_id, id limit 500`,
          [ep.tenant_id, ep.last_xact_id, ep.last_event_id],
        );
        if (!events.length) continue;
        for (const e of events) {
          if (!takes(ep.events, e.kind)) continue;
          const input: WebhookInput = {
            tenantId: ep.tenant_id,
            endpointId: ep.id,
            eventId: webhookEventId(e.account_id, e.seq),
            ...opts.timing,
          };
          await opts.temporal.workflow
            .start(webhookWorkflow, {
              workflowId: webhookWorkflowId(ep.id, input.eventId),
              taskQueue: opts.taskQueue,
              args: [input],
              workflowIdReusePolicy: 'REJECT_DUPLICATE',
              typedSearchAttributes: searchAttributes({ tenantId: ep.tenant_id, accountId: e.account_id }),
            })
            .catch((err) => {
              if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
            });
        }
        const last = events[events.length - 1];
        await db.query(`update webhook_endpoints set last_xact_id = $2, last_event_id = $3 where id = $1`, [
          ep.id,
          last.xact_id,
          last.id,
        ]);
      }
      await db.query('commit');
    } catch (err) {
      await db.query('rollback').catch(() => undefined);
      throw err;
    } finally {
      db.off('error', lost);
      db.release();
    }
  }

  const kick = () => {
    if (stopped) return;
    if (running) return void (again = true);
    running = round()
      .catch((err) => opts.logger.error({ err }, 'webhook dispatch round failed'))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          kick();
        }
      });
  };
  listener.on('notification', kick);
  await listener.query('LISTEN account_events');
  const timer = setInterval(kick, opts.intervalMs);
  kick();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      await listener.end().catch(() => undefined);
      await pool.end();
    },
  };
}
