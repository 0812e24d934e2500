/**
 * `/ws/quotes` (docs/api.md §6.1): the canonical mark per venue and symbol; no authentication needed.
 * `Subscribe { topics: ['paper:BTC.PAPER', ...] }` (topic = `<venue>:<symbol>`, symbols from
 * `GET /api/v1/symbols/{venue}`) → `Result { ok, topics }`, then `Quote { seq, venue, symbol,
 * mark, bid, ask, ts }` at once and on every mark change. Each quote is serialised once for every socket
 * (api/ws/quotes-hub.ts), so `seq` is the pair's quote number on this api process, the same on every
 * socket (not a per-connection count). A socket that keeps up gets each quote at once; only one whose
 * send buffer is past the low-water mark queues, and there quotes coalesce per pair (latest wins; the
 * replaced quote's `seq` is skipped, so a gap is normal); past the 1 MiB backlog cap the socket gets
 * `Resync-Required { reason, dropped, topics }` (no `seq`; `topics`: the pairs whose quotes were dropped;
 * api/ws/outbox.ts). `Unsubscribe { topics }`, `Ping` → `Pong { serverTime }`; a per-frame rate limit
 * exempts Ping and Alive; idle close after 60 s of silence.
 */
import type { WebSocket } from 'ws';
import { findSymbol } from '../../domain/market/symbols.js';
import type { QuotesHub } from './quotes-hub.js';
import { IDLE_CLOSE_MS } from './risk.js';
import { clientFrames, readFrame, UNSUBSCRIBE_FRAME } from './client-frames.js';
import { FrameLimiter } from './frame-limit.js';
import { Outbox, type FrameMeter } from './outbox.js';
import { notOffered, type OfferCheck } from './offered.js';

const frame = clientFrames(UNSUBSCRIBE_FRAME);

/**
 * Serves one `/ws/quotes` connection; `meter` counts its frames (api/ops/metrics.ts); `offered` refuses the
 * pairs its tenant does not offer (api/ws/offered.ts).
 */
export function serveQuotesSocket(
  ws: WebSocket,
  hub: QuotesHub,
  offered: OfferCheck,
  idleCloseMs = IDLE_CLOSE_MS,
  meter?: FrameMeter,
): void {
  // Quotes carry their pair's seq (the hub's), so the outbox numbers nothing and its resync names the topics.
  const out = new Outbox(ws, undefined, meter, { numbered: false, resyncFields: (topics) => ({ topics }) });
  const send = (msg: Record<string, unknown>) => out.reply(msg);
  const limiter = new FrameLimiter();
  const subs = new Map<string, () => void>();
  let pending = Promise.resolve();
  const pairOf = (t: string) => {
    const [venue = '', symbol = ''] = t.split(':');
    return { venue, symbol };
  };
  let idle = setTimeout(() => ws.close(1000, 'idle'), idleCloseMs);
  /**
   * Topic `t`'s quotes, as the hub serialised them once for every socket; latest wins: a quote still queued for a
   * slow socket is replaced by the newer one of its pair.
   */
  const deliver = (t: string) => (frame: Buffer) => out.push(frame, t, t);
  ws.on('message', (raw) => {
    clearTimeout(idle);
    idle = setTimeout(() => ws.close(1000, 'idle'), idleCloseMs);
    const read = readFrame(frame, String(raw), 'expected Subscribe, Unsubscribe, Ping or Alive');
    if ('error' in read) return void send({ type: 'Result', ok: false, ...read });
    const msg = read.frame;
    if (msg.type === 'Ping') return void send({ type: 'Pong', serverTime: new Date().toISOString() });
    if (msg.type === 'Alive') return void send({ type: 'Result', ok: true });
    if (!limiter.take()) return void send({ type: 'Result', ok: false, error: 'rate_limited', detail: limiter.detail });
    if (msg.type === 'Authenticate') return void send({ type: 'Result', ok: true });
    if (!msg.topics.length) return void send({ type: 'Result', ok: false, error: 'topics_required' });
    const unknown = msg.topics.filter((t) => {
      const { venue, symbol } = pairOf(t);
      return !findSymbol(venue, symbol);
    });
    if (unknown.length)
      return void send({
        type: 'Result',
        ok: false,
        error: 'unknown_topic',
        detail: `unknown: ${unknown.join(', ')}; topics are <venue>:<symbol>, e.g. paper:BTC.PAPER`,
      });
    // In arrival order: a Subscribe waits for its tenant's rules (read once per socket).
    const topics = msg.topics;
    const apply = async () => {
      if (msg.type === 'Subscribe') {
        const refused = await offered(topics.map((t) => ({ topic: t, ...pairOf(t) })));
        if (refused.length) return send(notOffered(refused));
      }
      for (const t of topics) {
        if (msg.type === 'Subscribe' && !subs.has(t) && ws.readyState === ws.OPEN)
          subs.set(t, hub.subscribe(t.replace(':', ' '), deliver(t)));
        if (msg.type === 'Unsubscribe') {
          subs.get(t)?.();
          subs.delete(t);
        }
      }
      send({ type: 'Result', ok: true, topics: [...subs.keys()] });
    };
    pending = pending.then(apply, apply);
  });
  ws.on('close', () => {
    clearTimeout(idle);
    subs.forEach((off) => off());
  });
}
