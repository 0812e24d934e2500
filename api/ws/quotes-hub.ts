/**
 * Fan-out of canonical marks to `/ws/quotes` sockets: each api process LISTENs on `marks` (the
 * feed's upsert NOTIFYs `<venue> <symbol>`), reads the row and hands it to that pair's listeners.
 * Only the latest mark matters, so a pair whose read is in flight coalesces further notifications.
 */
import pg from 'pg';
import type { Logger } from 'pino';

/** A mark as `/ws/quotes` and `GET /market/quotes` show it (decimal strings, ISO time). */
export interface QuoteView {
  venue: string;
  symbol: string;
  mark: string;
  bid: string;
  ask: string;
  ts: string;
}

/** A row of `select mark::text, bid::text, ask::text, ts from marks` as pg returns it (timestamptz → Date). */
interface MarkRow {
  mark: string;
  bid: string;
  ask: string;
  ts: Date;
}

export interface QuotesHub {
  subscribe(key: string, fn: (q: QuoteView) => void): () => void;
  stop(): Promise<void>;
}

export async function startQuotesHub(databaseUrl: string, logger: Logger): Promise<QuotesHub> {
  const listener = new pg.Client({ connectionString: databaseUrl });
  const reader = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  listener.on('error', (err) => logger.error({ err }, 'quotes hub connection failed'));
  reader.on('error', (err) => logger.error({ err }, 'quotes hub pool error'));
  await listener.connect();
  const subs = new Map<string, Set<(q: QuoteView) => void>>();
  const inFlight = new Set<string>();
  const again = new Set<string>();

  const load = async (key: string) => {
    if (!subs.get(key)?.size) return;
    if (inFlight.has(key)) return void again.add(key);
    inFlight.add(key);
    try {
      const [venue, symbol] = key.split(' ');
      const { rows } = await reader.query<MarkRow>(
        `select mark::text, bid::text, ask::text, ts from marks where venue = $1 and symbol = $2`,
        [venue, symbol],
      );
      if (rows[0]) {
        const q: QuoteView = {
          venue,
          symbol,
          mark: rows[0].mark,
          bid: rows[0].bid,
          ask: rows[0].ask,
          ts: new Date(rows[0].ts).toISOString(),
        };
        for (const fn of subs.get(key) ?? []) fn(q);
      }
    } catch (err) {
      logger.error({ err, key }, 'quote fan-out failed');
    } finally {
      inFlight.delete(key);
      if (again.delete(key)) void load(key);
    }
  };
  listener.on('notification', (n) => n.payload && void load(n.payload));
  await listener.query('listen marks');
  return {
    subscribe(key, fn) {
      (subs.get(key) ?? subs.set(key, new Set()).get(key)!).add(fn);
      void load(key); // the current mark at once
      return () => subs.get(key)?.delete(fn);
    },
    async stop() {
      await listener.end();
      await reader.end();
    },
  };
}
