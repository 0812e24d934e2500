/**
 * Fan-out of canonical marks to `/ws/quotes` sockets: each api process LISTENs on `marks` (the
 * feed's upsert NOTIFYs the new mark itself, db/mark-notice.ts) and hands it to that pair's listeners
 * without reading the row; a quote older than the one held is ignored. The row is read only for a
 * pair's first subscriber (one read per pair at a time; notifications meanwhile coalesce).
 *
 * Each mark is serialised ONCE per process, not once per socket: listeners get the `Quote` frame as
 * UTF-8 bytes, the same Buffer for every socket (written as is, no per-socket encoding). So its `seq`
 * is the pair's, not the socket's: it rises by one with each mark of the pair this process fans out.
 * The pair's latest frame is kept while it has listeners, so a new subscriber gets the current quote
 * at once, without a read and without re-sending it to every other socket of the pair; a re-read
 * that finds the same mark sends nothing.
 *
 * The LISTEN connection reconnects by itself (db/notices.ts): while it is down `latest()` says nothing
 * (callers read PostgreSQL); once it LISTENs again every followed pair is read afresh (a mark published
 * meanwhile reaches its sockets) before `latest()` serves memory again.
 */
import { newPool } from '../../db/pool.js';
import type { Logger } from 'pino';
import { parseMarkNotice, type NoticedMark } from '../../db/mark-notice.js';
import { startNotices } from '../../db/notices.js';

/** A mark as `/ws/quotes` and `GET /market/quotes` show it (decimal strings, ISO time): as NOTIFY `marks` carries it. */
export type QuoteView = NoticedMark;

/** A row of `select mark::text, bid::text, ask::text, ts from marks` as pg returns it (timestamptz → Date). */
interface MarkRow {
  mark: string;
  bid: string;
  ask: string;
  ts: Date;
}

/**
 * A listener of one pair: `frame` is the UTF-8 JSON of `Quote { type, seq, venue, symbol, mark, bid, ask, ts }`
 * (`seq`: the pair's quote number on this process), the same Buffer for every listener of the pair; not to be
 * modified.
 */
export type QuoteListener = (frame: Buffer) => void;

/** The `application_name` of the quotes hub's LISTEN connection (pg_stat_activity). */
export const QUOTES_HUB_APPLICATION = 'platform-quotes-hub';

/** The quotes hub of one api process. */
export interface QuotesHub {
  /**
   * Listens to the pair `key` (`<venue> <symbol>`): `fn` gets its current quote soon after (never
   * during this call), then every change; returns the unsubscribe function.
   */
  subscribe(key: string, fn: QuoteListener): () => void;
  /**
   * The pair's latest quote as this process holds it (`GET /market/quotes`, issue 15): from the first
   * call on, the pair stays followed (a listener of its own), so later calls read memory kept current by
   * NOTIFY `marks`. Undefined until the first read lands, and while the LISTEN connection is down (the
   * caller reads PostgreSQL then).
   */
  latest(key: string): QuoteView | undefined;
  /** Closes its connections. */
  stop(): Promise<void>;
}

/**
 * Starts the hub: a LISTEN connection (reconnecting) and a pool of 2 for its reads. Resolves once it
 * LISTENs (or once a first connection attempt failed: it keeps reconnecting with backoff); never rejects.
 */
export async function startQuotesHub(databaseUrl: string, logger: Logger): Promise<QuotesHub> {
  const reader = newPool({ connectionString: databaseUrl, max: 2 }, (err) =>
    logger.error({ err }, 'quotes hub pool error'),
  );
  /** Whether the LISTEN connection is up (and the followed pairs were read after it came up). */
  let listening = false;
  const subs = new Map<string, Set<QuoteListener>>();
  /** The latest quote per pair with listeners (dropped with the pair's last listener: no reads then). */
  const latest = new Map<string, { view: string; frame: Buffer; quote: QuoteView }>();
  /** Pairs `latest()` follows for good. */
  const followed = new Set<string>();
  /** The `seq` of the pair's latest quote on this process (kept when its listeners leave: never reused). */
  const seqs = new Map<string, number>();
  const inFlight = new Set<string>();
  const again = new Set<string>();

  /** Fans `q` out to the pair's listeners unless it is older than, or the same as, the quote held. */
  const apply = (key: string, q: QuoteView) => {
    const fns = subs.get(key);
    const held = latest.get(key);
    if (!fns?.size || (held && q.ts < held.quote.ts)) return;
    const view = JSON.stringify(q);
    if (view === held?.view) return;
    const seq = (seqs.get(key) ?? 0) + 1;
    seqs.set(key, seq);
    const frame = Buffer.from(JSON.stringify({ type: 'Quote', seq, ...q }));
    latest.set(key, { view, frame, quote: q });
    for (const fn of fns) fn(frame);
  };

  /** Reads the pair's row (a first subscriber; a NOTIFY without the mark); one read per pair at a time. */
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
      if (rows[0])
        apply(key, {
          venue,
          symbol,
          mark: rows[0].mark,
          bid: rows[0].bid,
          ask: rows[0].ask,
          ts: new Date(rows[0].ts).toISOString(),
        });
    } catch (err) {
      logger.error({ err, key }, 'quote fan-out failed');
    } finally {
      inFlight.delete(key);
      if (again.delete(key)) void load(key);
    }
  };
  const listener = await startNotices(
    databaseUrl,
    [
      {
        channels: {
          marks: (payload) => {
            if (!payload) return;
            const { key, mark } = parseMarkNotice(payload);
            if (mark) apply(key, mark);
            else void load(key);
          },
        },
        // What was published while nothing was notified here: every pair with listeners is read again.
        ready: async () => void (await Promise.all([...subs.keys()].map(load))),
        up: () => (listening = true),
        lost: () => (listening = false),
      },
    ],
    logger,
    { application: QUOTES_HUB_APPLICATION, name: 'quotes hub' },
  );
  const hub: QuotesHub = {
    latest(key) {
      if (!followed.has(key)) {
        followed.add(key);
        hub.subscribe(key, () => undefined);
      }
      return listening ? latest.get(key)?.quote : undefined;
    },
    subscribe(key, fn) {
      const fns = subs.get(key) ?? subs.set(key, new Set()).get(key)!;
      fns.add(fn);
      const current = latest.get(key);
      // The current mark at once: the kept frame (after the caller's own reply), else a read for the pair.
      if (current === undefined) void load(key);
      else queueMicrotask(() => fns.has(fn) && fn(current.frame));
      return () => {
        fns.delete(fn);
        if (!fns.size) latest.delete(key);
      };
    },
    async stop() {
      await listener.stop();
      await reader.end();
    },
  };
  return hub;
}
