/**
 * The webhook dispatcher (docs/api.md §6.4): turns new account events into delivery workflows
 * `webhook-<endpointId>-<eventId>`, one per enabled endpoint whose `events` take the event's kind
 * (`*` takes all). It runs in every worker process, woken by `LISTEN account_events` and at least
 * every `intervalMs`. A round takes each enabled endpoint (the list read at most once per `intervalMs`) in chunks: one short transaction per chunk
 * locks the endpoint (`for update skip locked`, so two workers never take the same endpoint at once),
 * starts the workflows of up to 100 events past its cursor `(last_xact_id, last_event_id)` (20 at a
 * time) and moves the cursor. Events are read in `(xact_id, id)` order, compared as numbers, and only
 * from transactions older than every one still running (`pg_snapshot_xmin`), so an event whose
 * transaction took a lower id but commits later is never passed over (migration EventCommitOrder); it
 * waits for the next round. A start that finds the workflow id already used is skipped (at-least-once,
 * never twice from here). A disabled endpoint's cursor stays: re-enabled, it receives what happened
 * meanwhile. Each chunk is logged at debug level (`webhook dispatch chunk`: cursor from/to, counts). */
import pg from 'pg';
import { newPool } from '../db/pool.js';
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

/** Events a chunk reads at most: short transactions, so a killed worker rolls back little. */
const CHUNK = 100;
/** Delivery workflows started at once within a chunk. */
const PARALLEL_STARTS = 20;

/** An endpoint row as a chunk reads it (bigints as text). */
interface EndpointCursor {
  id: string;
  tenant_id: string;
  events: string[];
  last_event_id: string;
  last_xact_id: string;
}

/** An account event as a chunk reads it (`event_id` and `xact` are bigints as text). */
interface EventRow {
  event_id: string;
  kind: string;
  account_id: string;
  seq: number;
  xact: string;
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
  const pool = newPool({ connectionString: opts.databaseUrl, max: 2 }, (err) =>
    opts.logger.error({ err }, 'webhook dispatcher pool error'),
  );
  const listener = new pg.Client({ connectionString: opts.databaseUrl });
  listener.on('error', (err) => opts.logger.error({ err }, 'webhook dispatcher listener failed; polling only'));
  await listener.connect();

  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  /** The enabled endpoints' ids as last read, and when (ms, `Date.now()`). */
  let enabled: { ids: string[]; readAt: number } | undefined;
  /**
   * The enabled endpoints' ids, read without a lock (each chunk locks its endpoint itself and skips it when it was
   * disabled meanwhile) and at most once per `intervalMs` (issue 15: every account event wakes a round, and the list
   * was read once per event). An endpoint enabled since the last read is taken at the next read, within 2 × `intervalMs`;
   * its cursor keeps the events of the meantime, so it misses none.
   */
  async function enabledEndpoints(): Promise<string[]> {
    if (enabled && Date.now() - enabled.readAt < opts.intervalMs) return enabled.ids;
    const readAt = Date.now();
    const { rows } = await pool.query<{ id: string }>(
      `select id from webhook_endpoints where status = 'enabled' order by id`,
    );
    enabled = { ids: rows.map((r) => r.id), readAt };
    return enabled.ids;
  }

  /**
   * One chunk of one endpoint in its own transaction: locks the endpoint (skipped when another worker
   * holds it or it was disabled meanwhile), starts the workflows of up to {@link CHUNK} events past its
   * cursor, {@link PARALLEL_STARTS} at a time, and moves the cursor. Answers whether a full chunk was
   * read (more may wait). A chunk is short, so a worker killed mid-round loses little of what it did:
   * the next chunk's starts that already ran find their workflow ids taken and are skipped.
   */
  async function chunk(endpointId: string): Promise<boolean> {
    const db = await pool.connect();
    // A connection lost mid-round (PostgreSQL restarting) is logged here; the round's query rejects (db/pool.ts).
    const lost = (err: Error) => opts.logger.warn({ err }, 'webhook dispatch connection lost');
    db.on('error', lost);
    try {
      await db.query('begin');
      const {
        rows: [ep],
      } = await db.query<EndpointCursor>(
        `select id, tenant_id, events, last_event_id::text, last_xact_id::text from webhook_endpoints
          where id = $1 and status = 'enabled' for update skip locked`,
        [endpointId],
      );
      if (!ep) {
        await db.query('commit');
        return false;
      }
      // Ordered by the table's columns: the text casts of the select list must not decide the order
      // (`order by xact_id` would name the text column, and '10008' sorts before '9988').
      const { rows: events } = await db.query<EventRow>(
        `select e.id::text as event_id, e.kind, e.account_id, e.seq, e.xact_id::text as xact
           from account_events e
          where e.tenant_id = $1 and (e.xact_id, e.id) > ($2::bigint, $3::bigint)
            and e.xact_id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
          order by e.xact_id, e.id limit ${CHUNK}`,
        [ep.tenant_id, ep.last_xact_id, ep.last_event_id],
      );
      const counts = { started: 0, existed: 0 };
      const wanted = events.filter((e) => takes(ep.events, e.kind));
      for (let i = 0; i < wanted.length; i += PARALLEL_STARTS)
        await Promise.all(wanted.slice(i, i + PARALLEL_STARTS).map((e) => start(ep, e, counts)));
      if (events.length) {
        const last = events[events.length - 1];
        await db.query(`update webhook_endpoints set last_xact_id = $2, last_event_id = $3 where id = $1`, [
          ep.id,
          last.xact,
          last.event_id,
        ]);
        opts.logger.debug(
          {
            endpointId: ep.id,
            from: `${ep.last_xact_id}/${ep.last_event_id}`,
            to: `${last.xact}/${last.event_id}`,
            events: events.length,
            ...counts,
          },
          'webhook dispatch chunk',
        );
      }
      await db.query('commit');
      return events.length === CHUNK;
    } catch (err) {
      await db.query('rollback').catch(() => undefined);
      throw err;
    } finally {
      db.off('error', lost);
      db.release();
    }
  }

  /** Starts the delivery workflow of `e` for `ep`; a workflow id already taken counts as `existed`. */
  async function start(ep: EndpointCursor, e: EventRow, counts: { started: number; existed: number }) {
    const input: WebhookInput = {
      tenantId: ep.tenant_id,
      endpointId: ep.id,
      eventId: webhookEventId(e.account_id, e.seq),
      ...opts.timing,
    };
    try {
      await opts.temporal.workflow.start(webhookWorkflow, {
        workflowId: webhookWorkflowId(ep.id, input.eventId),
        taskQueue: opts.taskQueue,
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: searchAttributes({ tenantId: ep.tenant_id, accountId: e.account_id }),
      });
      counts.started++;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      counts.existed++;
    }
  }

  async function round(): Promise<void> {
    for (const id of await enabledEndpoints()) while (!stopped && (await chunk(id)));
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
