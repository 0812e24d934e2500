/**
 * The on-demand market stream producer (docs/api.md §4.6 cold cache, §6.1 `/ws/market`; docs/architecture.md "one
 * producer per symbol"). A pair streams while somebody asked for it in the last `idleMs` (a row in
 * `market_streams`, written by the api on a depth or tape read and while a socket subscribes).
 * Across all workers exactly one process streams a pair: it holds the session advisory lock
 * `marketstream:<venue> <symbol>` on a dedicated connection. The leader of a pair:
 *
 * - follows the canonical mark (LISTEN `marks`): each new book gets the next `bookSeq`, is stored in
 *   `market_books`, and is announced with its delta from the previous book and the inside quote;
 * - keeps the tape in `market_trades` (the last {@link TAPE_KEEP} prints per pair) and announces each print:
 *   - a pair whose venue is live (`livePrints(venue)`, under `VENUE_FEEDS=live`): the venue's own prints, which
 *     the holder of the pair's mark-feed lock (worker/worker.ts, possibly another process) hands over once per
 *     tick with {@link handOverPrints} (NOTIFY `market_prints`, {@link PrintsNotice}); stored in arrival order,
 *     with the venue's trade ids and times; no backfill (the tape is empty until the venue trades);
 *   - any other perp: the recorded trade prints replayed on the wall clock, backfilling up to one replay
 *     loop when it starts; a prediction pair (no recorded prints) has an empty tape;
 * - announces volume at price over the kept tape (buckets of ten ticks) once per second;
 * - beats `market_streams.heartbeat_at` every {@link HEARTBEAT_MS}; readers treat a pair whose
 *   heartbeat is older than `LIVE_WITHIN_MS` (db/market-streams.ts, 3 s) as having no producer (`503 cold_cache`).
 *
 * Announcements go out as `NOTIFY market_stream, <json>` ({@link StreamMessage}); every api
 * process LISTENs and fans out to its sockets (api/ws/market-hub.ts).
 *
 * The LISTEN and the locks share one connection, which reconnects by itself (db/notices.ts): when it is
 * lost the locks are gone with it, so the producer stops streaming every pair at once (another worker may
 * take them over); once it is back it reconciles: contends again for the demanded pairs and resumes them.
 */
import { parseMarkNotice } from '../../../db/mark-notice.js';
import { startNotices, type NoticeQuery } from '../../../db/notices.js';
import type pg from 'pg';
import { newPool } from '../../../db/pool.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import { Decimal, fmt } from '../../../domain/decimal.js';
import { bookDelta, type WireBook } from '../../../domain/market/book-delta.js';
import type { StreamMessage, WirePrint } from '../../../domain/market/stream-message.js';
import { tradesBetween, type RecordedMarket, type TapePrint } from '../../../domain/market/replay.js';
import { findSymbol, PAPER_SYMBOLS, type SymbolSpec } from '../../../domain/market/symbols.js';
import { loadRecordedMarket } from './recorded.js';

/** A pair streams while it was demanded within this window, ms. */
export const STREAM_IDLE_MS = 5 * 60_000;
/** Heartbeat period of a streaming pair, ms. */
export const HEARTBEAT_MS = 1_000;
/** Tape prints kept per pair. */
export const TAPE_KEEP = 1_000;
/** A starting stream backfills the replayed tape in steps of this much wall time (each step's prints stamped with its end), ms. */
export const TAPE_BACKFILL_STEP_MS = 1_000;
/** Tape replay period, ms. */
export const TAPE_TICK_MS = 250;
/** Volume-at-price buckets are this many ticks wide. */
export const VAP_BUCKET_TICKS = 10;

/** NOTIFY payloads must stay under PostgreSQL's 8000-byte limit: prints go out in chunks of this many. */
const PRINTS_PER_NOTIFY = 40;

/** The channel the mark-feed leader of a live pair hands its venue's trade prints over on ({@link handOverPrints}). */
export const MARKET_PRINTS_CHANNEL = 'market_prints';

interface Stream {
  venue: string;
  symbol: string;
  key: string;
  bookSeq: number;
  lastBook: WireBook | null;
  lastWallMs: number;
  /** The recording whose prints are replayed; null when the tape is not replayed (a live pair, a prediction pair). */
  recorded: RecordedMarket | null;
  /** The tape is the venue's live prints (handed over on `market_prints`). */
  live: boolean;
  /** Live prints are stored and announced one batch after another, in arrival order. */
  tape: Promise<void>;
  tick: Decimal;
  vapDirty: boolean;
  vap: Map<string, { buy: Decimal; sell: Decimal }>;
  vapPrints: { bucket: string; size: Decimal; side: 'buy' | 'sell' }[];
}

/** Options of {@link startStreamProducer}. */
export interface StreamProducerOptions {
  databaseUrl: string;
  logger: Logger;
  /** Demand window, ms (default {@link STREAM_IDLE_MS}). */
  idleMs?: number;
  /** Replay anchor of the tape, Unix ms (default 0: the same anchor as the mark feed). */
  anchorMs?: number;
  /** Directory holding `hyperliquid_ticks/` (default: the configured market data dir). */
  dataDir?: string;
  /**
   * Whether a venue's tape is its live prints (handed over on `market_prints`) rather than the replay: the worker
   * passes `VENUE_FEEDS=live` and modules/market/feeds/live-feeds.ts `isLiveVenue`. Default: no venue.
   */
  livePrints?: (venue: string) => boolean;
}

/** A running producer. */
export interface StreamProducer {
  /** Pairs this process streams now (`<venue> <symbol>`). */
  leading(): string[];
  /** Stops streaming (clearing the heartbeats of its pairs, waking the other producers) and closes its connections. */
  stop(): Promise<void>;
}

/** The `application_name` of the producer's LISTEN and locks connection (pg_stat_activity). */
export const STREAM_PRODUCER_APPLICATION = 'platform-market-streams';

/** A `marks` row as {@link startStreamProducer} selects it (prices as decimal text; `book` is the jsonb the mark writer stores). */
interface MarkRow {
  mark: string;
  bid: string;
  ask: string;
  book: { bids: [string, string][]; asks: [string, string][] };
  ts: Date;
}

const wireBook = (b: { bids: [string, string][]; asks: [string, string][] }): WireBook => ({
  bids: b.bids,
  asks: b.asks,
});
const printToWire = (p: TapePrint): WirePrint => ({
  tradeId: p.tradeId,
  ts: new Date(p.ts).toISOString(),
  price: fmt(p.price),
  size: fmt(p.size),
  side: p.side,
});

/** What NOTIFY `market_prints` carries: one pair's live prints of one tick (decimal strings, ISO times), in order. */
export interface PrintsNotice {
  venue: string;
  symbol: string;
  prints: WirePrint[];
}

const decimalText = z.string().regex(/^-?\d+(\.\d+)?$/);
const printsNotice = z.object({
  venue: z.string(),
  symbol: z.string(),
  prints: z.array(
    z.object({
      tradeId: z.string().min(1),
      ts: z.iso.datetime(),
      price: decimalText,
      size: decimalText,
      side: z.enum(['buy', 'sell']),
    }),
  ),
});

/**
 * Hands one tick's live trade prints of a pair (venue trade ids, venue times Unix ms, prices USD, sizes contracts)
 * to whichever process streams the pair: `NOTIFY market_prints, <PrintsNotice>` in chunks of 40 prints (under
 * PostgreSQL's 8000-byte payload limit), in one statement. Nothing is sent for no prints. Called by the holder of
 * the pair's mark-feed lock for a live venue (worker/worker.ts; docs/architecture.md "Market data").
 * @throws Error from PostgreSQL.
 */
export async function handOverPrints(
  db: Pick<pg.Pool, 'query'>,
  venue: string,
  symbol: string,
  prints: readonly TapePrint[],
): Promise<void> {
  if (!prints.length) return;
  const payloads: string[] = [];
  for (let i = 0; i < prints.length; i += PRINTS_PER_NOTIFY)
    payloads.push(
      JSON.stringify({
        venue,
        symbol,
        prints: prints.slice(i, i + PRINTS_PER_NOTIFY).map(printToWire),
      } satisfies PrintsNotice),
    );
  await db.query('select pg_notify($1, p) from unnest($2::text[]) with ordinality as x(p, n) order by n', [
    MARKET_PRINTS_CHANNEL,
    payloads,
  ]);
}

/**
 * Starts the producer: LISTENs `market_demand`, `marks` and `market_prints`, contends for the locks of demanded
 * pairs and streams the ones it wins. Resolves once it listens and has reconciled (or once a first
 * connection attempt failed: it keeps reconnecting with backoff); never rejects.
 */
export async function startStreamProducer(opts: StreamProducerOptions): Promise<StreamProducer> {
  const { logger } = opts;
  const idleMs = opts.idleMs ?? STREAM_IDLE_MS;
  const anchorMs = opts.anchorMs ?? 0;
  const livePrints = opts.livePrints ?? (() => false);
  const pool = newPool({ connectionString: opts.databaseUrl, max: 3 }, (err) =>
    logger.error({ err }, 'market stream connection error'),
  );

  const streams = new Map<string, Stream>();
  const bookInFlight = new Set<string>();
  const bookAgain = new Set<string>();
  let stopped = false;
  let reconciling: Promise<void> = Promise.resolve();
  /** Queries on the LISTEN connection, which holds the locks; undefined while it is down. */
  let locks: NoticeQuery | undefined;
  /** Bumped when the connection (and with it every lock) is lost: a stream starting across it is dropped. */
  let generation = 0;
  const lockQuery: NoticeQuery = (text, values) =>
    locks ? locks(text, values) : Promise.reject(new Error('market stream locks connection is down'));

  const notify = (msg: StreamMessage) => pool.query('select pg_notify($1, $2)', ['market_stream', JSON.stringify(msg)]);

  /** Reads the pair's mark; a changed book gets the next bookSeq, is stored and announced. */
  async function followBook(key: string): Promise<void> {
    const s = streams.get(key);
    if (!s) return;
    if (bookInFlight.has(key)) return void bookAgain.add(key);
    bookInFlight.add(key);
    try {
      const { rows } = await pool.query<MarkRow>(
        'select mark::text, bid::text, ask::text, book, ts from marks where venue = $1 and symbol = $2',
        [s.venue, s.symbol],
      );
      const m = rows[0];
      if (!m || !streams.has(key)) return;
      const book = wireBook(m.book);
      if (s.lastBook && JSON.stringify(s.lastBook) === JSON.stringify(book)) return;
      const prevBookSeq = s.lastBook ? s.bookSeq : null;
      const delta = s.lastBook ? bookDelta(s.lastBook, book) : null;
      s.bookSeq += 1;
      s.lastBook = book;
      const ts = new Date(m.ts).toISOString();
      await pool.query(
        `insert into market_books (venue, symbol, book_seq, ts, bids, asks) values ($1, $2, $3, $4, $5, $6)
         on conflict (venue, symbol) do update set book_seq = excluded.book_seq, ts = excluded.ts, bids = excluded.bids, asks = excluded.asks`,
        [s.venue, s.symbol, s.bookSeq, ts, JSON.stringify(book.bids), JSON.stringify(book.asks)],
      );
      await notify({
        k: 'book',
        venue: s.venue,
        symbol: s.symbol,
        bookSeq: s.bookSeq,
        prevBookSeq,
        ts,
        book,
        delta,
        bbo: { bid: m.bid, ask: m.ask, mark: m.mark },
      });
    } catch (err) {
      logger.error({ err, key }, 'market stream book update failed');
    } finally {
      bookInFlight.delete(key);
      if (bookAgain.delete(key)) void followBook(key);
    }
  }

  /** Adds prints to the kept tape and the volume-at-price ring. */
  function countVap(s: Stream, prints: TapePrint[]) {
    const width = s.tick.times(VAP_BUCKET_TICKS);
    for (const p of prints) {
      const bucket = fmt(p.price.div(width).floor().times(width));
      s.vapPrints.push({ bucket, size: p.size, side: p.side });
      const v = s.vap.get(bucket) ?? { buy: new Decimal(0), sell: new Decimal(0) };
      s.vap.set(bucket, p.side === 'buy' ? { ...v, buy: v.buy.plus(p.size) } : { ...v, sell: v.sell.plus(p.size) });
    }
    while (s.vapPrints.length > TAPE_KEEP) {
      const old = s.vapPrints.shift()!;
      const v = s.vap.get(old.bucket)!;
      const next = old.side === 'buy' ? { ...v, buy: v.buy.minus(old.size) } : { ...v, sell: v.sell.minus(old.size) };
      if (next.buy.isZero() && next.sell.isZero()) s.vap.delete(old.bucket);
      else s.vap.set(old.bucket, next);
    }
    if (prints.length) s.vapDirty = true;
  }

  /** Stores prints in the kept tape and counts them into volume at price. */
  async function storePrints(s: Stream, prints: TapePrint[]): Promise<void> {
    if (!prints.length) return;
    await pool.query(
      `insert into market_trades (venue, symbol, trade_id, ts, price, size, side)
       select $1, $2, t, to_timestamp(ms::bigint / 1000.0), p::numeric, z::numeric, d from unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) as x(t, ms, p, z, d)`,
      [
        s.venue,
        s.symbol,
        prints.map((p) => p.tradeId),
        prints.map((p) => String(p.ts)),
        prints.map((p) => fmt(p.price)),
        prints.map((p) => fmt(p.size)),
        prints.map((p) => p.side),
      ],
    );
    countVap(s, prints);
  }

  /** Stores prints in the kept tape and announces them (`trades` messages of at most 40 prints). */
  async function tapePrints(s: Stream, prints: TapePrint[]): Promise<void> {
    await storePrints(s, prints);
    for (let i = 0; i < prints.length; i += PRINTS_PER_NOTIFY)
      await notify({
        k: 'trades',
        venue: s.venue,
        symbol: s.symbol,
        prints: prints.slice(i, i + PRINTS_PER_NOTIFY).map(printToWire),
      });
  }

  /** Stores and announces the prints the replay passed over since the last call. */
  async function replayTape(s: Stream, nowMs: number): Promise<void> {
    if (!s.recorded) return;
    const prints = tradesBetween(s.recorded, s.lastWallMs, nowMs, anchorMs);
    s.lastWallMs = nowMs;
    await tapePrints(s, prints);
  }

  /** A `market_prints` notice: the live prints of a pair this process streams join its tape, in arrival order. */
  function onLivePrints(payload: string): void {
    let notice: PrintsNotice;
    try {
      notice = printsNotice.parse(JSON.parse(payload));
    } catch (err) {
      return void logger.error({ err }, 'unreadable market_prints notice');
    }
    const s = streams.get(`${notice.venue} ${notice.symbol}`);
    if (!s?.live) return; // another process streams it, or nobody asked for it
    const prints: TapePrint[] = notice.prints.map((p) => ({
      tradeId: p.tradeId,
      ts: Date.parse(p.ts),
      price: new Decimal(p.price),
      size: new Decimal(p.size),
      side: p.side,
    }));
    s.tape = s.tape
      .then(() => (streams.get(s.key) === s ? tapePrints(s, prints) : undefined))
      .catch((err: unknown) => logger.error({ err, key: s.key }, 'live tape update failed'));
  }

  async function startStream(venue: string, symbol: string): Promise<void> {
    const key = `${venue} ${symbol}`;
    const spec = findSymbol(venue, symbol);
    if (!spec) return;
    const started = generation;
    const { rows } = await lockQuery<{ ok: boolean }>('select pg_try_advisory_lock(hashtext($1)) as ok', [
      `marketstream:${key}`,
    ]);
    if (!rows[0].ok) return;
    try {
      await openStream(key, spec, started);
    } catch (err) {
      // not streaming it: let another attempt (this process's next reconcile, or another worker) take it
      if (!streams.has(key))
        await lockQuery('select pg_advisory_unlock(hashtext($1))', [`marketstream:${key}`]).catch(() => undefined);
      throw err;
    }
  }

  /** Loads what a pair's stream starts from (the kept tape, the recording it replays) and starts streaming it. */
  async function openStream(key: string, spec: SymbolSpec, started: number): Promise<void> {
    const { venue, symbol } = spec;
    const live = livePrints(venue);
    // the tape replays the recorded Hyperliquid prints of a perp's coin; a live pair and a prediction pair have none
    const recorded =
      live || spec.assetClass === 'prediction' ? null : await loadRecordedMarket(spec.sourceCoin, opts.dataDir);
    const now = Date.now();
    const last = await pool.query<{ book_seq: string }>(
      'select book_seq from market_books where venue = $1 and symbol = $2',
      [venue, symbol],
    );
    const s: Stream = {
      venue,
      symbol,
      key,
      bookSeq: Number(last.rows[0]?.book_seq ?? 0),
      lastBook: null,
      lastWallMs: now,
      recorded,
      live,
      tape: Promise.resolve(),
      tick: new Decimal(spec.tickSize),
      vapDirty: false,
      vap: new Map(),
      vapPrints: [],
    };
    // the kept tape seeds volume at price; backfill only the span the kept tape does not cover
    const kept = await pool.query<{ ts: Date; price: string; size: string; side: 'buy' | 'sell' }>(
      'select ts, price::text, size::text, side from market_trades where venue = $1 and symbol = $2 order by id desc limit $3',
      [venue, symbol, TAPE_KEEP],
    );
    countVap(
      s,
      kept.rows.reverse().map((r) => ({
        tradeId: '',
        ts: new Date(r.ts).getTime(),
        price: new Decimal(r.price),
        size: new Decimal(r.size),
        side: r.side,
      })),
    );
    // backfill what the kept tape misses: back to its newest print, at most one replay loop (so a
    // fresh tape is never empty however sparse the recording is around now), newest TAPE_KEEP kept;
    // a live pair's tape starts with the venue's next print
    const backfill: TapePrint[] = [];
    if (recorded) {
      const loopMs = 2 * (recorded.endMs - recorded.startMs);
      const newest = kept.rows[0] ? new Date(kept.rows.at(-1)!.ts).getTime() : 0;
      const from = Math.max(now - loopMs, newest);
      for (let w = from; w < now; w += TAPE_BACKFILL_STEP_MS)
        backfill.push(...tradesBetween(recorded, w, Math.min(w + TAPE_BACKFILL_STEP_MS, now), anchorMs));
    }
    await storePrints(s, backfill.slice(-TAPE_KEEP));
    if (generation !== started) return; // the lock went with the connection meanwhile
    streams.set(key, s);
    logger.info(
      { venue, symbol, tape: live ? 'live' : 'replay', backfilled: Math.min(backfill.length, TAPE_KEEP) },
      'market stream started',
    );
    await followBook(key);
    await pool.query('update market_streams set heartbeat_at = now() where venue = $1 and symbol = $2', [
      venue,
      symbol,
    ]);
  }

  async function stopStream(s: Stream): Promise<void> {
    streams.delete(s.key);
    await pool.query('update market_streams set heartbeat_at = null where venue = $1 and symbol = $2', [
      s.venue,
      s.symbol,
    ]);
    await lockQuery('select pg_advisory_unlock(hashtext($1))', [`marketstream:${s.key}`]);
    logger.info({ venue: s.venue, symbol: s.symbol }, 'market stream stopped (no demand)');
  }

  /** Starts demanded pairs nobody streams, stops led pairs nobody demanded within `idleMs`. */
  function reconcile(): Promise<void> {
    reconciling = reconciling
      .then(async () => {
        if (stopped || !locks) return; // no locks without the connection: its `ready` reconciles
        const { rows } = await pool.query<{ venue: string; symbol: string }>(
          `select venue, symbol from market_streams where demanded_at > now() - make_interval(secs => $1::double precision / 1000)`,
          [idleMs],
        );
        const wanted = new Set(rows.map((r) => `${r.venue} ${r.symbol}`));
        for (const s of [...streams.values()]) if (!wanted.has(s.key)) await stopStream(s);
        for (const r of rows) if (!streams.has(`${r.venue} ${r.symbol}`)) await startStream(r.venue, r.symbol);
        // demand arrives when a reader found no live producer: answer it with a heartbeat at once
        if (streams.size)
          await pool.query(
            `update market_streams set heartbeat_at = now() where (venue || ' ' || symbol) = any($1::text[])`,
            [[...streams.keys()]],
          );
      })
      .catch((err: unknown) => logger.error({ err }, 'market stream reconcile failed'));
    return reconciling;
  }

  const listener = await startNotices(
    opts.databaseUrl,
    [
      {
        channels: {
          market_demand: () => void reconcile(),
          [MARKET_PRINTS_CHANNEL]: onLivePrints,
          marks: (payload) => {
            const key = payload ? parseMarkNotice(payload).key : undefined;
            if (key && streams.has(key)) void followBook(key);
          },
        },
        // (Re)connected: contend again for what is demanded (the first time too).
        async ready(query) {
          locks = query;
          await reconcile();
        },
        up: () => undefined,
        lost() {
          // The locks are gone with the connection: another producer may stream these pairs now.
          generation++;
          locks = undefined;
          if (streams.size && !stopped)
            logger.warn({ pairs: [...streams.keys()] }, 'market stream locks lost with the connection');
          streams.clear();
        },
      },
    ],
    logger,
    { application: STREAM_PRODUCER_APPLICATION, name: 'market stream producer' },
  );

  let beats = 0;
  const tapeTimer = setInterval(() => {
    const now = Date.now();
    for (const s of streams.values())
      void replayTape(s, now).catch((err: unknown) => logger.error({ err, key: s.key }, 'tape replay failed'));
    if (++beats % Math.round(HEARTBEAT_MS / TAPE_TICK_MS) !== 0) return;
    void (async () => {
      const led = [...streams.values()];
      if (led.length) {
        await pool.query(
          `update market_streams set heartbeat_at = now() where (venue || ' ' || symbol) = any($1::text[])`,
          [led.map((s) => s.key)],
        );
        for (const s of led) {
          if (!s.vapDirty) continue;
          s.vapDirty = false;
          const levels = [...s.vap.entries()]
            .sort(([a], [b]) => new Decimal(b).comparedTo(a))
            .map(([price, v]) => ({ price, buyVolume: fmt(v.buy), sellVolume: fmt(v.sell) }));
          await notify({
            k: 'vap',
            venue: s.venue,
            symbol: s.symbol,
            ts: new Date().toISOString(),
            bucket: fmt(s.tick.times(VAP_BUCKET_TICKS)),
            levels,
            prints: s.vapPrints.length,
          });
        }
        await pool.query(
          `delete from market_trades t using (select venue, symbol, min(id) as keep_from from (select venue, symbol, id, row_number() over (partition by venue, symbol order by id desc) as n from market_trades) r where n <= $1 group by venue, symbol) k
            where t.venue = k.venue and t.symbol = k.symbol and t.id < k.keep_from`,
          [TAPE_KEEP],
        );
      }
      if (beats % Math.round(5_000 / TAPE_TICK_MS) === 0) await reconcile();
    })().catch((err: unknown) => logger.error({ err }, 'market stream heartbeat failed'));
  }, TAPE_TICK_MS);

  logger.debug({ symbols: PAPER_SYMBOLS.length }, 'market stream producer listening');

  return {
    leading: () => [...streams.keys()],
    async stop() {
      stopped = true;
      clearInterval(tapeTimer);
      await reconciling;
      await Promise.allSettled([...streams.values()].map((s) => s.tape));
      await Promise.allSettled(
        [...streams.values()].map((s) =>
          pool.query('update market_streams set heartbeat_at = null where venue = $1 and symbol = $2', [
            s.venue,
            s.symbol,
          ]),
        ),
      );
      streams.clear();
      await pool.query(`select pg_notify('market_demand', 'handover')`).catch(() => undefined); // another producer takes over at once
      await listener.stop();
      await pool.end();
    },
  };
}
