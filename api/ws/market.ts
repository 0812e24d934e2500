/**
 * `/ws/market` (docs/api.md §6.1, §6.3): depth, order-book deltas, trade tape, volume at price, inside
 * quote and candles of any streamed pair. No authentication needed; `Authenticate { token }` with a
 * bootstrap handshake token optionally attaches the caller's tenant (doubling its frame budget).
 *
 * Client frames: `Subscribe { topics }` / `Unsubscribe { topics }` → `Result { ok, topics }`;
 * `Ping` → `Pong { serverTime }`; `Alive` → `Result { ok: true }`. Topics (Hyperliquid names,
 * `<channel>:<venue>:<symbol>`), and the frame each one pushes:
 *
 * | Topic | Frame | Payload | Coalesces |
 * | --- | --- | --- | --- |
 * | `l2Book:paper:BTC.PAPER` | `L2-Book` | `bookSeq, ts, bids, asks` (`[price, size]`, best first) | yes |
 * | `l2Delta:paper:BTC.PAPER` | `L2-Delta` | `bookSeq, prevBookSeq, ts, bids, asks` (changed levels; size `"0"` removes) | no |
 * | `bbo:paper:BTC.PAPER` | `Bbo` | `bid, ask, mark, ts` | yes |
 * | `trades:paper:BTC.PAPER` | `Trades` | `prints: [{ tradeId, ts, price, size, side }]` | no |
 * | `volumeAtPrice:paper:BTC.PAPER` | `Volume-At-Price` | `bucket, levels: [{ price, buyVolume, sellVolume }], prints` | yes |
 * | `candle:paper:BTC.PAPER:1m` (`1m`, `1h`) | `Candle` | `interval, bar { openTime, closeTime, open, high, low, close, volume, closed }` | yes |
 *
 * Every data frame carries `type, topic, seq` (per connection). Subscribing to `l2Book` sends the
 * current book at once when the pair is streaming. Seeding (docs/api.md §6.3 rule 3): subscribe to
 * `l2Delta`, fetch `GET /market/depth` (it carries `bookSeq`), drop deltas with `bookSeq ≤` the
 * snapshot's, apply the rest; a delta whose `prevBookSeq` is not the last applied one is a gap:
 * re-snapshot. A `Resync-Required { reason: 'slow_consumer', dropped }` means the backlog was
 * dropped: drop local state and re-seed. Idle close after 60 s of inbound silence.
 */
import type { WebSocket } from 'ws';
import type { IncomingMessage } from 'node:http';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { findSymbol } from '../../domain/market/symbols.js';
import type { StreamMessage } from '../../domain/market/stream-message.js';
import type { MarketStreams } from '../../db/market-streams.js';
import { tenantLookup, tenantOf } from '../middleware/tenant.js';
import { notOffered, type OfferCheck } from './offered.js';
import { clientFrames, readFrame, UNSUBSCRIBE_FRAME } from './client-frames.js';
import { FRAME_RATE, FrameLimiter } from './frame-limit.js';
import { consumeHandshakeToken } from './handshake.js';
import type { MarketHub } from './market-hub.js';
import { Outbox, type FrameMeter } from './outbox.js';
import { IDLE_CLOSE_MS } from './risk.js';

/** Channels of `/ws/market` and the frame type each pushes. */
export const MARKET_CHANNELS = {
  l2Book: 'L2-Book',
  l2Delta: 'L2-Delta',
  bbo: 'Bbo',
  trades: 'Trades',
  volumeAtPrice: 'Volume-At-Price',
  candle: 'Candle',
} as const;
type Channel = keyof typeof MARKET_CHANNELS;
const CANDLE_INTERVALS = ['1m', '1h'];
const frame = clientFrames(UNSUBSCRIBE_FRAME);

/** A parsed topic, or a reason it is not one. */
export function parseMarketTopic(
  topic: string,
): { channel: Channel; venue: string; symbol: string; interval?: string } | { error: string } {
  const [channel, venue, symbol, interval, ...rest] = topic.split(':');
  if (!(channel in MARKET_CHANNELS))
    return { error: `unknown channel ${channel}; channels: ${Object.keys(MARKET_CHANNELS).join(', ')}` };
  if (!venue || !symbol || !findSymbol(venue, symbol))
    return { error: `unknown pair ${venue ?? ''}:${symbol ?? ''}; see GET /api/v1/symbols/{venue}` };
  if (channel === 'candle' ? !CANDLE_INTERVALS.includes(interval ?? '') || rest.length : interval !== undefined)
    return {
      error:
        channel === 'candle'
          ? `candle topics end with an interval: ${CANDLE_INTERVALS.join(', ')}`
          : `${channel} topics are ${channel}:<venue>:<symbol>`,
    };
  return { channel: channel as Channel, venue, symbol, interval };
}

/** The frames one stream message makes for the topics a socket holds: `[topic, frame, coalesce]`. */
function framesOf(msg: StreamMessage, has: (topic: string) => boolean): [string, Record<string, unknown>, boolean][] {
  const pair = `${msg.venue}:${msg.symbol}`;
  const out: [string, Record<string, unknown>, boolean][] = [];
  const add = (channel: Channel, suffix: string, body: Record<string, unknown>, coalesce: boolean) => {
    const topic = `${channel}:${pair}${suffix}`;
    if (has(topic))
      out.push([
        topic,
        { type: MARKET_CHANNELS[channel], topic, venue: msg.venue, symbol: msg.symbol, ...body },
        coalesce,
      ]);
  };
  if (msg.k === 'book') {
    add('l2Book', '', { bookSeq: msg.bookSeq, ts: msg.ts, ...msg.book }, true);
    if (msg.delta)
      add('l2Delta', '', { bookSeq: msg.bookSeq, prevBookSeq: msg.prevBookSeq, ts: msg.ts, ...msg.delta }, false);
    add('bbo', '', { ...msg.bbo, ts: msg.ts }, true);
  } else if (msg.k === 'trades') add('trades', '', { prints: msg.prints }, false);
  else if (msg.k === 'vap')
    add('volumeAtPrice', '', { ts: msg.ts, bucket: msg.bucket, levels: msg.levels, prints: msg.prints }, true);
  else add('candle', `:${msg.interval}`, { interval: msg.interval, bar: msg.bar }, true);
  return out;
}

/** What a `/ws/market` connection needs. */
export interface MarketSocketDeps {
  orm: MikroORM;
  hub: MarketHub;
  streams: MarketStreams;
  logger: Logger;
  idleCloseMs?: number;
  /** Queued-bytes cap per socket before `Resync-Required` (default 1 MiB). */
  outboxCapBytes?: number;
  /** Counts the socket's frames (api/ops/metrics.ts). */
  meter?: FrameMeter;
  /** Refuses the pairs the socket's tenant does not offer (api/ws/offered.ts). */
  offered: OfferCheck;
}

/** Serves one `/ws/market` connection. */
export function serveMarketSocket(ws: WebSocket, req: IncomingMessage, deps: MarketSocketDeps): void {
  const out = new Outbox(ws, deps.outboxCapBytes, deps.meter);
  const fail = (error: string, detail?: string) =>
    out.reply({ type: 'Result', ok: false, error, ...(detail ? { detail } : {}) });
  const topics = new Set<string>();
  const pairs = new Map<string, () => void>(); // pair key → hub unsubscribe
  let limiter = new FrameLimiter();
  let idle = setTimeout(() => ws.close(1000, 'idle'), deps.idleCloseMs ?? IDLE_CLOSE_MS);

  const deliver = (msg: StreamMessage) => {
    for (const [topic, f, coalesce] of framesOf(msg, (t) => topics.has(t))) out.push(f, coalesce ? topic : undefined);
  };
  const pairKey = (t: string) => t.split(':').slice(1, 3).join(' ');
  /** Drops hub listeners of pairs no topic of this socket needs any more. */
  const prune = () => {
    const needed = new Set([...topics].map(pairKey));
    for (const [key, off] of pairs) {
      if (!needed.has(key)) {
        off();
        pairs.delete(key);
      }
    }
  };

  async function subscribe(list: string[]) {
    const parsed = list.map((t) => [t, parseMarketTopic(t)] as const);
    const bad = parsed.filter(([, p]) => 'error' in p).map(([t, p]) => `${t}: ${(p as { error: string }).error}`);
    if (bad.length) return fail('unknown_topic', bad.join('; '));
    const refused = await deps.offered(
      parsed.flatMap(([topic, p]) => ('error' in p ? [] : [{ topic, venue: p.venue, symbol: p.symbol }])),
    );
    if (refused.length) return out.reply(notOffered(refused));
    for (const [t, p] of parsed) {
      if (topics.has(t) || 'error' in p) continue;
      topics.add(t);
      const key = `${p.venue} ${p.symbol}`;
      if (!pairs.has(key)) pairs.set(key, deps.hub.subscribe(key, deliver));
      if (p.channel === 'l2Book') {
        const book = await deps.streams.book(p.venue, p.symbol);
        if (book && topics.has(t))
          out.push({ type: 'L2-Book', topic: t, venue: p.venue, symbol: p.symbol, ...book }, t);
      }
    }
    out.reply({ type: 'Result', ok: true, topics: [...topics] });
  }

  async function authenticate(token: string | undefined) {
    if (!token) return fail('token_required');
    let tenantId: string;
    try {
      tenantId = (await tenantOf(tenantLookup(deps.orm), (h) => String(req.headers[h] ?? ''))).id;
    } catch {
      return fail('tenant_required', 'send X-Tenant-Slug (or connect on the tenant host) to authenticate');
    }
    const consumed = await consumeHandshakeToken(deps.orm, token, tenantId);
    if (!consumed) return fail('token_invalid');
    limiter = new FrameLimiter({ frames: FRAME_RATE.frames * 2, windowMs: FRAME_RATE.windowMs });
    out.reply({ type: 'Authenticated', tenantId, accountId: consumed.accountId });
  }

  ws.on('message', (raw) => {
    clearTimeout(idle);
    idle = setTimeout(() => ws.close(1000, 'idle'), deps.idleCloseMs ?? IDLE_CLOSE_MS);
    const read = readFrame(frame, String(raw), 'expected Subscribe, Unsubscribe, Authenticate, Ping or Alive');
    if ('error' in read) return fail(read.error, read.detail);
    const msg = read.frame;
    if (msg.type === 'Ping') return out.reply({ type: 'Pong', serverTime: new Date().toISOString() });
    if (msg.type === 'Alive') return out.reply({ type: 'Result', ok: true });
    if (!limiter.take()) return fail('rate_limited', limiter.detail);
    const onError = (err: unknown) => (deps.logger.error({ err }, '/ws/market frame failed'), fail('internal_error'));
    if (msg.type === 'Authenticate') return void authenticate(msg.token).catch(onError);
    if (!msg.topics.length) return fail('topics_required', 'topics must be non-empty');
    if (msg.type === 'Subscribe') return void subscribe(msg.topics).catch(onError);
    msg.topics.forEach((t) => topics.delete(t));
    prune();
    out.reply({ type: 'Result', ok: true, topics: [...topics] });
  });
  ws.on('close', () => {
    clearTimeout(idle);
    topics.clear();
    prune();
  });
}
