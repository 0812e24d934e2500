/**
 * Wakes resting paper orders: LISTENs on `marks`; for each changed venue symbol, finds the open
 * working orders the new mark crosses (domain/paper/engine `crosses`) and signals their intent
 * workflows (`markCrossed`). Signals are hints: the workflow re-checks under the account lock,
 * so a duplicate or late signal never fills twice. Runs in every worker; duplicates are harmless.
 *
 * The LISTEN connection reconnects by itself (db/notices.ts): after every (re)connect every venue symbol
 * with open orders is checked once, which catches the crossings of marks published while it was down
 * (or while no worker ran).
 */
import { parseMarkNotice } from '../../../db/mark-notice.js';
import { startNotices } from '../../../db/notices.js';
import { newPool } from '../../../db/pool.js';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { Decimal } from '../../../domain/decimal.js';
import { crosses, type PaperOrder } from '../../../domain/paper/engine.js';
import { intentWorkflowId, markCrossedSignal } from '../../oms/workflows/intent.definitions.js';

interface OpenOrderRow {
  id: string;
  side: string;
  type: string;
  qty: string;
  filled_qty: string;
  price: string | null;
  trigger_price: string | null;
  stop_limit_price: string | null;
  reduce_only: boolean;
  time_in_force: string;
  triggered: boolean;
}

const toOrder = (r: OpenOrderRow): PaperOrder => ({
  side: r.side as PaperOrder['side'],
  type: r.type as PaperOrder['type'],
  qty: new Decimal(r.qty).minus(r.filled_qty),
  price: r.price == null ? undefined : new Decimal(r.price),
  triggerPrice: r.trigger_price == null ? undefined : new Decimal(r.trigger_price),
  stopLimitPrice: r.stop_limit_price == null ? undefined : new Decimal(r.stop_limit_price),
  reduceOnly: r.reduce_only,
  timeInForce: r.time_in_force as PaperOrder['timeInForce'],
  triggered: r.triggered,
});

/** The `application_name` of the watcher's LISTEN connection (pg_stat_activity). */
export const TRIGGER_WATCHER_APPLICATION = 'platform-trigger-watcher';

/** A running watcher. */
export interface TriggerWatcher {
  /** Waits for the checks under way, then closes its connections. */
  stop(): Promise<void>;
  /** Checks one venue symbol now (also what a notification does). */
  check(venue: string, symbol: string): Promise<number>;
}

/**
 * Starts the watcher on a LISTEN connection of its own (reconnecting) and a pool of 2 for its reads.
 * Resolves once it listens and the catch-up checks are scheduled (or once a first connection attempt
 * failed: it keeps reconnecting with backoff); never rejects.
 */
export async function startTriggerWatcher(opts: {
  databaseUrl: string;
  temporal: Client;
  logger: Logger;
}): Promise<TriggerWatcher> {
  const reader = newPool({ connectionString: opts.databaseUrl, max: 2 }, (err) =>
    opts.logger.error({ err }, 'trigger watcher pool error'),
  );
  const running = new Map<string, Promise<number>>();
  const again = new Set<string>();

  async function check(venue: string, symbol: string): Promise<number> {
    const { rows: marks } = await reader.query<{ mark: string; ts: Date }>(
      'select mark, ts from marks where venue = $1 and symbol = $2',
      [venue, symbol],
    );
    if (!marks[0]) return 0;
    const mark = new Decimal(marks[0].mark);
    const { rows } = await reader.query<OpenOrderRow>(
      `select id, side, type, qty, filled_qty, price, trigger_price, stop_limit_price, reduce_only, time_in_force, triggered
         from order_intents where venue = $1 and symbol = $2 and order_status = 'open'`,
      [venue, symbol],
    );
    const crossing = rows.filter((r) => crosses(toOrder(r), mark));
    await Promise.all(
      crossing.map((r) =>
        opts.temporal.workflow
          .getHandle(intentWorkflowId(r.id))
          .signal(markCrossedSignal, { mark: marks[0].mark, ts: marks[0].ts.getTime() })
          .catch((err: unknown) => opts.logger.warn({ err, intentId: r.id }, 'markCrossed signal failed')),
      ),
    );
    return crossing.length;
  }

  /** One check per symbol at a time; a notification during a check schedules exactly one more. */
  function schedule(key: string) {
    if (running.has(key)) return void again.add(key);
    const [venue, symbol] = key.split(' ');
    const p = check(venue, symbol)
      .catch((err: unknown) => (opts.logger.error({ err, key }, 'trigger check failed'), 0))
      .finally(() => {
        running.delete(key);
        if (again.delete(key)) schedule(key);
      });
    running.set(key, p);
  }

  const listener = await startNotices(
    opts.databaseUrl,
    [
      {
        channels: { marks: (payload) => payload && schedule(parseMarkNotice(payload).key) },
        // Catch up on crossings that happened while this connection (or every worker) was not listening.
        async ready() {
          const { rows: open } = await reader.query<{ venue: string; symbol: string }>(
            `select distinct venue, symbol from order_intents where order_status = 'open'`,
          );
          for (const r of open) schedule(`${r.venue} ${r.symbol}`);
        },
        up: () => undefined,
        lost: () => undefined,
      },
    ],
    opts.logger,
    { application: TRIGGER_WATCHER_APPLICATION, name: 'trigger watcher' },
  );
  return {
    check,
    async stop() {
      await Promise.allSettled(running.values());
      await listener.stop();
      await reader.end();
    },
  };
}
