/**
 * The frames of the three WebSocket channels (docs/api.md §6), by name: each the type generated from its payload
 * schema in the AsyncAPI document (`generated/asyncapi.ts`, `npm run client:generate`), so a frame the document
 * changes changes here. Prices and sizes are decimal strings (USD, contracts), times ISO 8601 strings. Narrow a
 * channel's union on `type`: `if (f.type === 'Order-Intent-Update') f.data.state`.
 */
import type { channels } from './generated/asyncapi.js';
import type { components } from './generated/openapi.js';

/** The channels' addresses. */
export type ChannelPath = keyof channels;
/** Every frame of channel(s) `C` in direction `D` (`client`: to the server; `server`: to the client), as a union. */
type FramesOf<C extends ChannelPath, D extends 'client' | 'server'> = C extends ChannelPath
  ? channels[C][D][keyof channels[C][D]]
  : never;

/** A frame the client sends on any channel: `Subscribe`/`Unsubscribe { topics }`, `Authenticate { token }`, `Ping`, `Alive`. */
export type ClientFrame = FramesOf<ChannelPath, 'client'>;
/** Any frame `/ws/risk` sends. */
export type RiskFrame = FramesOf<'/ws/risk', 'server'>;
/** Any frame `/ws/quotes` sends. */
export type QuotesFrame = FramesOf<'/ws/quotes', 'server'>;
/** Any frame `/ws/market` sends. */
export type MarketFrame = FramesOf<'/ws/market', 'server'>;

// --- Frames of every channel -----------------------------------------------------------------------------------

/** `Pong { serverTime }`: the answer to `Ping`. */
export type PongFrame = channels['/ws/risk']['server']['Pong'];
/**
 * `Result { ok, topics?, error?, detail? }`: the answer to `Subscribe`, `Unsubscribe`, `Alive` or a refused frame;
 * `error` one of the WebSocket codes of docs/api.md §7.2 (`token_invalid`, `unknown_topic`, `rate_limited`, …).
 */
export type ResultFrame = channels['/ws/risk']['server']['Result'];
/**
 * `Resync-Required { reason: 'slow_consumer', dropped }`: the backlog was dropped; re-read the REST snapshots.
 * `/ws/risk` names the accounts (`accountIds`), `/ws/quotes` the pairs (`topics`), `/ws/market` numbers it (`seq`).
 */
export type ResyncRequiredFrame =
  | channels['/ws/risk']['server']['Resync-Required']
  | channels['/ws/quotes']['server']['Resync-Required']
  | channels['/ws/market']['server']['Resync-Required'];
/** `Authenticated`: the handshake token was accepted (`/ws/risk`: with every account of the owner, `accountIds`). */
export type AuthenticatedFrame =
  channels['/ws/risk']['server']['Authenticated'] | channels['/ws/market']['server']['Authenticated'];

// --- /ws/risk --------------------------------------------------------------------------------------------------

/** The `/ws/risk` topics (docs/api.md §6.3). */
export type RiskTopic = channels['/ws/risk']['client']['Subscribe']['topics'][number];
/** `Order-Intent-Update` (topic `Order-Intent-Changed`): the intent after a step (`state`, `lastEvent`, `venueOrderId`, fills). */
export type OrderIntentUpdateFrame = channels['/ws/risk']['server']['Order-Intent-Update'];
/** `Open-Orders-Update` (topic `Order-Intent-Changed`): the account's working orders whenever that set changes. */
export type OpenOrdersUpdateFrame = channels['/ws/risk']['server']['Open-Orders-Update'];
/** `Position-Changed` (topic `Position-Changed`): the position after a fill. */
export type PositionChangedFrame = channels['/ws/risk']['server']['Position-Changed'];
/** `Fill` (topic `Fills`): the fill, or an imported manual trade as the trade. */
export type FillFrame = channels['/ws/risk']['server']['Fill'];
/** `Funding-Update` (topic `Funding`): a deposit, withdrawal, transfer, held or rejected operation, or funding payment. */
export type FundingUpdateFrame = channels['/ws/risk']['server']['Funding-Update'];

/** An order intent as REST shows it (docs/api.md §2.6). */
export type OrderIntent = components['schemas']['OrderIntent'];
/** A fill as REST shows it (docs/api.md §2.8): `qty` contracts, `price`, `feeUsd`, `realizedPnlUsd` USD. */
export type Fill = components['schemas']['Fill'];
/** A position as REST shows it (docs/api.md §2.5): `qty` signed contracts; mark fields `null` without a fresh mark. */
export type Position = components['schemas']['Position'];

// --- /ws/quotes, /ws/market ------------------------------------------------------------------------------------

/** `Quote { seq, venue, symbol, mark, bid, ask, ts }`: the pair's canonical mark, USD. */
export type QuoteFrame = channels['/ws/quotes']['server']['Quote'];
/** `L2-Book` (topic `l2Book:…`): the book, `[price, size]` best first; `bookSeq` its version. */
export type L2BookFrame = channels['/ws/market']['server']['L2-Book'];
/** `L2-Delta` (topic `l2Delta:…`): changed levels (size `"0"` removes) from `prevBookSeq` to `bookSeq`. */
export type L2DeltaFrame = channels['/ws/market']['server']['L2-Delta'];
/** `Bbo` (topic `bbo:…`): the inside quote and the mark, USD. */
export type BboFrame = channels['/ws/market']['server']['Bbo'];
/** `Trades` (topic `trades:…`): new prints; `side` the aggressor's. */
export type TradesFrame = channels['/ws/market']['server']['Trades'];
/** `Volume-At-Price` (topic `volumeAtPrice:…`): volume per bucket over the kept tape, once a second. */
export type VolumeAtPriceFrame = channels['/ws/market']['server']['Volume-At-Price'];
/** `Candle` (topic `candle:…:1m|1h`): the forming (`closed: false`) or closed bar. */
export type CandleFrame = channels['/ws/market']['server']['Candle'];
