/**
 * The three channels (docs/api.md §6.1) as {@link StreamSocket}s:
 * - `/ws/risk`: each connection bootstraps a single-use handshake token (`POST /api/auth/bootstrap`, 60 s;
 *   10 per minute per credential), sends `Authenticate { token }`, waits for `Authenticated` (§6.2);
 * - `/ws/quotes`: no authentication;
 * - `/ws/market`: no authentication, or with `authenticate: true` a bootstrap token that attaches the tenant
 *   and doubles the frame budget.
 * Then every channel subscribes its topics (§6.3). The URL of `/ws/risk` is the bootstrap answer's endpoint,
 * of the others the API's base URL with `http` → `ws`; `wsBaseUrl` overrides both (`ws://host:port`).
 */
import { SocketError, StreamSocket, type ChannelOpener, type Connection, type StreamOptions } from './socket.js';
import type { AuthenticatedFrame, MarketFrame, QuotesFrame, ResultFrame, RiskFrame, RiskTopic } from './frames.js';
import type { components } from './generated/openapi.js';

/** The answer of `POST /api/auth/bootstrap`: `data.riskEngineWss` / `data.quoteServiceWss` `{ endpoint, token, expiresAt }`. */
export type Bootstrap = components['schemas']['Bootstrap'];

/** What the channels need of the client. */
export interface ChannelContext {
  /** The API's base URL (`http(s)://…`). */
  baseUrl: string;
  /** `ws(s)://host[:port]` to connect to instead of what the bootstrap and the base URL say. */
  wsBaseUrl?: string;
  /** Upgrade headers: `X-Tenant-Slug`. */
  headers: Record<string, string>;
  /** `POST /api/auth/bootstrap` with the client's bearer. @throws ApiError */
  bootstrap(): Promise<Bootstrap>;
}

/** Options of one channel socket: the topics and {@link StreamOptions} timings. */
export type ChannelOptions<Topic extends string = string> = Omit<StreamOptions, 'headers' | 'topics'> & {
  /** Subscribed on every connection. */
  topics?: Topic[];
};

/** `ws(s)://…<path>` for a channel, from `wsBaseUrl` or the API's base URL. */
function socketUrl(ctx: ChannelContext, path: string): string {
  return `${(ctx.wsBaseUrl ?? ctx.baseUrl.replace(/^http/, 'ws')).replace(/\/$/, '')}${path}`;
}

/** Sends `Authenticate { token }` and waits for `Authenticated`. @throws SocketError with the `Result` refusal. */
async function authenticate<F extends { type: string }>(
  conn: Connection<F>,
  token: string,
): Promise<AuthenticatedFrame> {
  const answer = conn.next(
    (f): f is F & (AuthenticatedFrame | ResultFrame) =>
      f.type === 'Authenticated' || (f.type === 'Result' && (f as unknown as ResultFrame).ok === false),
  );
  conn.send({ type: 'Authenticate', token });
  const frame = await answer;
  if (frame.type === 'Result') throw new SocketError(frame.error ?? 'refused', frame.detail);
  return frame;
}

/** `/ws/risk`: the account's intents, working orders, positions, fills and funding (`Order-Intent-Changed`, …). */
export function riskSocket(ctx: ChannelContext, opts: ChannelOptions<RiskTopic> = {}): StreamSocket<RiskFrame> {
  const opener: ChannelOpener<RiskFrame> = {
    async open() {
      const { endpoint, token } = (await ctx.bootstrap()).data.riskEngineWss;
      return {
        url: ctx.wsBaseUrl ? socketUrl(ctx, '/ws/risk') : endpoint,
        authenticate: async (conn) => void (await authenticate(conn, token)),
      };
    },
  };
  return new StreamSocket(opener, { ...opts, headers: ctx.headers });
}

/** `/ws/quotes`: the canonical mark of each `<venue>:<symbol>` topic (`paper:BTC.PAPER`). */
export function quotesSocket(ctx: ChannelContext, opts: ChannelOptions = {}): StreamSocket<QuotesFrame> {
  return new StreamSocket<QuotesFrame>(
    { open: async () => ({ url: socketUrl(ctx, '/ws/quotes') }) },
    { ...opts, headers: ctx.headers },
  );
}

/**
 * `/ws/market`: depth, deltas, inside quote, tape, volume at price and candles (`l2Book:paper:BTC.PAPER`,
 * `candle:paper:BTC.PAPER:1m`, …). `authenticate`: attach the tenant with a bootstrap token on each connection.
 */
export function marketSocket(
  ctx: ChannelContext,
  opts: ChannelOptions & { authenticate?: boolean } = {},
): StreamSocket<MarketFrame> {
  const { authenticate: withToken = false, ...rest } = opts;
  const opener: ChannelOpener<MarketFrame> = {
    async open() {
      const url = socketUrl(ctx, '/ws/market');
      if (!withToken) return { url };
      const { token } = (await ctx.bootstrap()).data.riskEngineWss;
      return { url, authenticate: async (conn) => void (await authenticate(conn, token)) };
    },
  };
  return new StreamSocket(opener, { ...rest, headers: ctx.headers });
}
