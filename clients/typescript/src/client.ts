/**
 * `createClient()`: the platform's API as typed calls (openapi-fetch over the generated OpenAPI types) with the
 * credential's bearer minted and refreshed for you (tokens.ts, auth.ts), `X-Tenant-Slug` on every request,
 * an `Idempotency-Key` on the writes that take one (idempotency.ts), cursor iteration (pagination.ts) and the
 * three WebSocket channels (channels.ts).
 */
import createFetchClient, { type Client, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import { bearerAuth } from './auth.js';
import {
  riskSocket,
  quotesSocket,
  marketSocket,
  type Bootstrap,
  type ChannelContext,
  type ChannelOptions,
} from './channels.js';
import { ok } from './errors.js';
import type { MarketFrame, QuotesFrame, RiskFrame, RiskTopic } from './frames.js';
import type { paths } from './generated/openapi.js';
import { idempotencyKeys } from './idempotency.js';
import { paginate, type CursorPage, type CursorPath, type PageItem } from './pagination.js';
import type { StreamSocket } from './socket.js';
import { TokenSource } from './tokens.js';

/** How to reach the API and as whom. */
export interface ClientOptions {
  /** The API's base URL, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** The tenant, sent as `X-Tenant-Slug` on every request and socket (docs/api.md §5.6). */
  tenantSlug: string;
  /** The credential (`tk_…` or `ok_…`) and its secret, minted into bearers (docs/api.md §2.2). */
  apiKey: string;
  apiSecret: string;
  /** Mint a new bearer when the current one expires within this long, ms (default 300 000). */
  refreshBeforeMs?: number;
  /** `ws(s)://host[:port]` for the sockets instead of the bootstrap's endpoint and the base URL (a proxy). */
  wsBaseUrl?: string;
  /** The clock, epoch ms (default `Date.now`): when the bearer counts as expiring. */
  now?: () => number;
  /** The fetch every request goes through (default `globalThis.fetch`). */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * The key of a write that names none (default `crypto.randomUUID()`); `false`: send none unless the call names
   * one (the benches, to measure the same request as before the client).
   */
  idempotencyKey?: (() => string) | false;
}

type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';
/** The paths of the document that take `M`. */
type PathsWith<M extends Method> = { [P in keyof paths]: paths[P] extends Record<M, object> ? P : never }[keyof paths];
type Media = `${string}/${string}`;
/** openapi-fetch's init argument: required when the operation has required parameters or body. */
type InitArg<I> = [keyof I] extends [never] ? [I?] : object extends I ? [I?] : [I];
/** The 2xx data of `path`'s `M` operation. */
type DataOf<M extends Method, P extends PathsWith<M>, I> = NonNullable<
  FetchResponse<paths[P][M] & Record<string | number, unknown>, I, Media>['data']
>;

/**
 * A method that answers the 2xx data of the operation, typed from the document.
 * @throws ApiError `{ status, error, detail }` on any other status.
 */
type DataMethod<M extends Method> = <P extends PathsWith<M>, I extends MaybeOptionalInit<paths[P], M>>(
  path: P,
  ...init: InitArg<I>
) => Promise<DataOf<M, P, I>>;

/** The client: typed calls, cursor iteration, sockets. */
export interface MultivenueClient {
  /**
   * The openapi-fetch client itself, with the same bearer, tenant and idempotency middleware: answers
   * `{ data, error, response }` instead of throwing (read headers such as `Idempotency-Replay` from `response`).
   */
  readonly api: Client<paths, Media>;
  /** `GET`/`POST`/`PUT`/`PATCH`/`DELETE` of a path of the document; answer its 2xx data or throw ApiError. */
  readonly get: DataMethod<'get'>;
  readonly post: DataMethod<'post'>;
  readonly put: DataMethod<'put'>;
  readonly patch: DataMethod<'patch'>;
  readonly delete: DataMethod<'delete'>;
  /**
   * Every item of a cursor collection (`/api/v1/accounts/{id}/fills`, `/orders`, `/trades`, `/funding`,
   * `/events`, `/order-history`, operator lists), page after page: `for await (const fill of client.paginate(…))`.
   * `init` as for {@link get} (its `query.limit` is the page size); the cursor is the iterator's.
   * @throws ApiError as {@link get}
   */
  paginate<P extends CursorPath, I extends MaybeOptionalInit<paths[P], 'get'>>(
    path: P,
    ...init: InitArg<I>
  ): AsyncGenerator<PageItem<DataOf<'get', P, I>>, void, undefined>;
  /** The bearer source: `tokens.info` (the mint's answer), `tokens.mints`, `tokens.mint()` to force a refresh. */
  readonly tokens: TokenSource;
  /** `POST /api/auth/bootstrap`: single-use handshake tokens for the sockets (60 s; 10 per minute). */
  bootstrap(): Promise<Bootstrap>;
  /** A kept-open `/ws/risk` socket subscribed to `topics` (channels.ts, socket.ts). */
  risk(opts?: ChannelOptions<RiskTopic>): StreamSocket<RiskFrame>;
  /** A kept-open `/ws/quotes` socket subscribed to `topics` (`<venue>:<symbol>`). */
  quotes(opts?: ChannelOptions): StreamSocket<QuotesFrame>;
  /** A kept-open `/ws/market` socket subscribed to `topics`; `authenticate` attaches the tenant. */
  market(opts?: ChannelOptions & { authenticate?: boolean }): StreamSocket<MarketFrame>;
}

/**
 * A client of one credential on one tenant. Nothing is sent until the first call (which mints the bearer).
 * @example
 *   const client = createClient({ baseUrl, tenantSlug, apiKey, apiSecret });
 *   const intent = await client.post('/api/v1/oms/intents', { body: { venue: 'paper', symbol: 'BTC.PAPER', side: 'buy', type: 'market', qty: '0.01' } });
 */
export function createClient(opts: ClientOptions): MultivenueClient {
  const fetch = opts.fetch ?? ((request: Request) => globalThis.fetch(request));
  const headers = { 'X-Tenant-Slug': opts.tenantSlug };
  const tokens = new TokenSource({ ...opts, fetch });
  const api = createFetchClient<paths, Media>({ baseUrl: opts.baseUrl, headers, fetch });
  // Order matters: the key is set before the auth middleware keeps its copy of the request for a retry.
  if (opts.idempotencyKey !== false) api.use(idempotencyKeys(opts.idempotencyKey));
  api.use(bearerAuth(tokens, fetch));

  /** The throwing method `M` over openapi-fetch's. */
  const data =
    <M extends Method>(m: M): DataMethod<M> =>
    (path, ...init) => {
      const call = api[m.toUpperCase() as Uppercase<M>] as (
        p: string,
        i?: object,
      ) => Promise<FetchResponse<Record<string | number, unknown>, object, Media>>;
      return ok(call(path, init[0]));
    };
  const get = data('get');
  const bootstrap = () => ok(api.POST('/api/auth/bootstrap', {}));
  const channels: ChannelContext = { baseUrl: opts.baseUrl, wsBaseUrl: opts.wsBaseUrl, headers, bootstrap };

  return {
    api,
    get,
    post: data('post'),
    put: data('put'),
    patch: data('patch'),
    delete: data('delete'),
    paginate(path, ...init) {
      const base = (init[0] ?? {}) as { params?: { query?: object } };
      // The generic init cannot be spread back into `get`'s parameter type: the cursor is the iterator's own.
      return paginate(
        (cursor) =>
          get(path, {
            ...base,
            params: { ...base.params, query: { ...base.params?.query, ...(cursor ? { cursor } : {}) } },
          } as never) as Promise<CursorPage>,
      ) as never;
    },
    tokens,
    bootstrap,
    risk: (o) => riskSocket(channels, o),
    quotes: (o) => quotesSocket(channels, o),
    market: (o) => marketSocket(channels, o),
  };
}
