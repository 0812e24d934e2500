/**
 * `@multivenue/client`: the typed TypeScript client of the multi-venue trading platform (README "TypeScript
 * client", clients/typescript/README.md). Generated types of the OpenAPI document (`paths`, `components`,
 * `operations`) plus a thin hand-written layer: bearer minting and refresh, idempotency keys, cursor
 * iteration, and the three WebSocket channels with bootstrap, heartbeat, reconnect and resync.
 */
export { createClient, type ClientOptions, type MultivenueClient } from './client.js';
export { ApiError, ok, type ErrorBody, type FetchResult } from './errors.js';
export { TokenSource, type ApiToken, type TokenSourceOptions } from './tokens.js';
export { IDEMPOTENCY_HEADER, isIdempotentOperation } from './idempotency.js';
export { paginate, type CursorPage, type CursorPath, type PageItem } from './pagination.js';
export { StreamSocket, SocketError, type ResyncEvent, type StreamEvents, type StreamOptions } from './socket.js';
export type { Bootstrap, ChannelOptions } from './channels.js';
export type * from './frames.js';
export type { components, operations, paths } from './generated/openapi.js';
export type { channels } from './generated/asyncapi.js';
