/**
 * The platform's marks as the dev simulators price from them (scripts/lib/dev-venues.ts): held in memory and kept
 * current by the mark store's NOTIFY `marks`, whose payload carries the new mark (db/mark-notice.ts), the way a venue's
 * matching engine holds its prices in memory. Issue 15: reading the row on every order (one PostgreSQL round trip in
 * the simulator's answer, ~6 ms p50 under the venue bench's load) was most of a simulated Hyperliquid order's time.
 *
 * While the connection listens, a pair not held has no mark (the load after LISTEN read every row, and the trigger
 * notifies every insert and update; marks are never deleted): null, without a read (a prediction market's other
 * outcome often has none). Read from PostgreSQL instead while the notices connection is down (db/notices.ts:
 * PostgreSQL restarted, as in the chaos run), and for a pair whose notice came without its mark (the payload of
 * migrations before MarkNotice).
 */
import pg from 'pg';
import { pino } from 'pino';
import { canon, fmt } from '../../domain/decimal.js';
import { parseMarkNotice } from '../../db/mark-notice.js';
import { readMark } from '../../db/marks.js';
import { startNotices } from '../../db/notices.js';
import { sqlOfClient } from '../../db/sql.js';

/** What {@link startDevMarks} answers: the mark of a pair, and `stop()`. */
export interface DevMarks {
  /** The current mark of `symbol` on `venue` (USD, canonical decimal string; any age), null when it has none. */
  markOf(venue: string, symbol: string): Promise<string | null>;
  /** Ends the notices connection and the pool. */
  stop(): Promise<void>;
}

/** The notices connection's `application_name` (pg_stat_activity). */
const APPLICATION = 'dev-simulator-marks';

/** Follows the marks of the database at `databaseUrl`; resolves once they are held (or the first LISTEN failed). */
export async function startDevMarks(databaseUrl: string): Promise<DevMarks> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  // A PostgreSQL restart ends idle connections: no fault of a reader's, and the pool opens new ones.
  pool.on('error', () => undefined);
  /** `<venue> <symbol>` → mark, while listening; null: noticed without its mark, read from PostgreSQL. */
  const held = new Map<string, string | null>();
  /** Pairs noticed while the load after a (re)connect runs: the load's older rows must not overwrite them. */
  let noticedInLoad: Set<string> | null = null;
  let listening = false;
  const notices = await startNotices(
    databaseUrl,
    [
      {
        channels: {
          marks: (payload) => {
            if (!payload) return;
            const { key, mark } = parseMarkNotice(payload);
            noticedInLoad?.add(key);
            held.set(key, mark ? canon(mark.mark) : null);
          },
        },
        ready: async (query) => {
          noticedInLoad = new Set();
          try {
            const { rows } = await query<{ key: string; mark: string }>(
              `select venue || ' ' || symbol as key, mark::text as mark from marks`,
            );
            for (const r of rows) if (!noticedInLoad.has(r.key)) held.set(r.key, canon(r.mark));
          } finally {
            noticedInLoad = null;
          }
        },
        up: () => (listening = true),
        lost: () => {
          listening = false;
          held.clear();
        },
      },
    ],
    pino({ level: 'silent' }),
    { application: APPLICATION, name: 'simulator marks' },
  );
  return {
    async markOf(venue, symbol) {
      if (listening) {
        const mark = held.get(`${venue} ${symbol}`);
        if (mark !== null) return mark ?? null; // held, or not held while listening: it has no mark
      }
      const tick = await readMark(sqlOfClient(pool), venue, symbol, Number.MAX_SAFE_INTEGER);
      return tick ? fmt(tick.mark) : null;
    },
    async stop() {
      await notices.stop();
      await pool.end();
    },
  };
}
