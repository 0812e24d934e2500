/**
 * The AsyncAPI 3.0 document of the WebSocket channels (docs/api.md §6), served at `/api/v1/asyncapi.json`:
 * every channel, its client frames, its server frames with their fields, and the topic patterns.
 * Built from one table so the document and the code list the same frames.
 */

/** A frame: name, direction and fields (name → description). */
interface FrameDoc {
  name: string;
  from: 'client' | 'server';
  fields: Record<string, string>;
  description?: string;
}

/** A `Resync-Required` without `seq` (api/ws/outbox.ts unnumbered): what was dropped is named by `scope`. */
const resyncFrame = (scope: Record<string, string>, description: string): FrameDoc => ({
  name: 'Resync-Required',
  from: 'server',
  fields: { reason: 'slow_consumer', dropped: 'frames dropped from the backlog', ...scope },
  description,
});

const COMMON: FrameDoc[] = [
  { name: 'Subscribe', from: 'client', fields: { topics: 'non-empty array of topics' } },
  { name: 'Ping', from: 'client', fields: {}, description: 'Send every 30 s; exempt from the frame rate limit' },
  {
    name: 'Alive',
    from: 'client',
    fields: {},
    description: 'Legacy keep-alive, answered by Result { ok: true }; exempt from the rate limit',
  },
  { name: 'Pong', from: 'server', fields: { serverTime: 'ISO time' } },
  {
    name: 'Result',
    from: 'server',
    fields: {
      ok: 'boolean',
      topics: 'subscribed topics (on success)',
      error:
        'code (on failure): invalid_frame, invalid_json, topics_required, unknown_topic, rate_limited, token_required, token_invalid',
      detail: 'text',
    },
  },
  {
    name: 'Resync-Required',
    from: 'server',
    fields: { seq: 'frame sequence', reason: 'slow_consumer', dropped: 'frames dropped from the backlog' },
    description: 'Drop local state, re-fetch the REST snapshot, carry on',
  },
];

/** Channels, their topic patterns and frames. */
export const CHANNELS: { path: string; auth: string; topics: string[]; frames: FrameDoc[]; description: string }[] = [
  {
    path: '/ws/market',
    auth: 'none; Authenticate { token } (bootstrap handshake token) optionally attaches the tenant and doubles the frame budget',
    topics: [
      'l2Book:<venue>:<symbol>',
      'l2Delta:<venue>:<symbol>',
      'bbo:<venue>:<symbol>',
      'trades:<venue>:<symbol>',
      'volumeAtPrice:<venue>:<symbol>',
      'candle:<venue>:<symbol>:<1m|1h>',
    ],
    description:
      'Depth, order-book deltas, inside quote, trade tape, volume at price and live candles of streamed pairs. Prices USD, sizes contracts, decimal strings. Books, quotes, candles and volume at price coalesce under load (latest wins; a seq gap is normal); deltas and prints do not.',
    frames: [
      ...COMMON,
      { name: 'Unsubscribe', from: 'client', fields: { topics: 'topics to drop' } },
      { name: 'Authenticate', from: 'client', fields: { token: 'handshake token from POST /api/auth/bootstrap' } },
      {
        name: 'L2-Book',
        from: 'server',
        fields: {
          topic: 'l2Book:…',
          seq: 'per connection',
          venue: '',
          symbol: '',
          bookSeq: 'book version',
          ts: 'ISO time',
          bids: '[price, size][] best first',
          asks: '[price, size][] best first',
        },
      },
      {
        name: 'L2-Delta',
        from: 'server',
        fields: {
          topic: 'l2Delta:…',
          seq: '',
          bookSeq: 'version after the delta',
          prevBookSeq: 'version it applies to',
          ts: '',
          bids: 'changed levels; size "0" removes',
          asks: 'changed levels',
        },
      },
      { name: 'Bbo', from: 'server', fields: { topic: 'bbo:…', seq: '', bid: 'USD', ask: 'USD', mark: 'USD', ts: '' } },
      {
        name: 'Trades',
        from: 'server',
        fields: { topic: 'trades:…', seq: '', prints: '[{ tradeId, ts, price, size, side (aggressor) }]' },
      },
      {
        name: 'Volume-At-Price',
        from: 'server',
        fields: {
          topic: 'volumeAtPrice:…',
          seq: '',
          bucket: 'bucket width USD (10 ticks)',
          levels: '[{ price, buyVolume, sellVolume }] over the kept tape',
          prints: 'prints counted',
        },
      },
      {
        name: 'Candle',
        from: 'server',
        fields: {
          topic: 'candle:…:<interval>',
          seq: '',
          interval: '1m | 1h',
          bar: '{ openTime, closeTime, open, high, low, close, volume, closed }',
        },
      },
    ],
  },
  {
    path: '/ws/quotes',
    auth: 'none',
    topics: ['<venue>:<symbol>'],
    description:
      'The canonical mark per venue and symbol; quotes coalesce per pair for a slow socket (latest wins; a seq gap is normal).',
    frames: [
      ...COMMON.filter((f) => f.name !== 'Resync-Required'),
      resyncFrame(
        { topics: 'pairs whose quotes were dropped' },
        "No seq (quotes carry their pair's): re-fetch the REST quote of topics, then apply the frames that follow",
      ),
      { name: 'Unsubscribe', from: 'client', fields: { topics: '' } },
      {
        name: 'Quote',
        from: 'server',
        fields: {
          seq: "the pair's quote number on this api process, the same on every socket",
          venue: '',
          symbol: '',
          mark: 'USD',
          bid: 'USD',
          ask: 'USD',
          ts: 'ISO time',
        },
      },
    ],
  },
  {
    path: '/ws/risk',
    auth: 'required: Authenticate { token } first (docs/api.md §6.2); a service_session cookie on the upgrade request authenticates at connect (Authenticated arrives unasked; closes with session_ended, 4401, when the session ends)',
    topics: ['Order-Intent-Changed', 'Position-Changed', 'Fills', 'Funding'],
    description:
      'Account state, working orders, positions and fills from the account event log; seq is the account log sequence.',
    frames: [
      ...COMMON.filter((f) => f.name !== 'Resync-Required'),
      resyncFrame(
        { accountIds: 'accounts whose frames were dropped' },
        'No seq (event frames keep the account log sequence): re-fetch the REST snapshots of accountIds, then apply the frames that follow',
      ),
      { name: 'Authenticate', from: 'client', fields: { token: 'handshake token' } },
      { name: 'Authenticated', from: 'server', fields: { tenantId: '', accountId: '', accountIds: '' } },
      {
        name: 'Order-Intent-Update',
        from: 'server',
        fields: { topic: '', seq: '', accountId: '', event: '', occurredAt: '', data: 'the intent as REST shows it' },
      },
      {
        name: 'Open-Orders-Update',
        from: 'server',
        fields: { topic: '', seq: '', accountId: '', data: 'working orders with venue order ids' },
      },
      {
        name: 'Position-Changed',
        from: 'server',
        fields: { topic: '', seq: '', accountId: '', data: 'the position as REST shows it' },
      },
      {
        name: 'Fill',
        from: 'server',
        fields: { topic: '', seq: '', accountId: '', data: 'the fill as REST shows it' },
      },
      {
        name: 'Funding-Update',
        from: 'server',
        fields: {
          topic: 'Funding',
          seq: '',
          accountId: '',
          data: 'deposit, withdrawal, transfer (amountUsd signed per account), a funding operation held for approval (type requested) or rejected, or a funding payment ({ type, amountUsd, operationId?, ... })',
        },
      },
    ],
  },
];

/** The AsyncAPI 3.0 document for a deployment whose public base URL is `baseUrl`. */
export function asyncApiDocument(baseUrl: string): Record<string, unknown> {
  const url = new URL(baseUrl);
  const message = (f: FrameDoc) => ({
    name: f.name,
    title: `${f.name} (${f.from} → ${f.from === 'client' ? 'server' : 'client'})`,
    ...(f.description ? { description: f.description } : {}),
    payload: {
      type: 'object',
      required: ['type'],
      properties: {
        type: { const: f.name },
        ...Object.fromEntries(Object.entries(f.fields).map(([k, d]) => [k, d ? { description: d } : {}])),
      },
    },
  });
  const key = (path: string) => path.replace(/\W+/g, '_').replace(/^_/, '');
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'multivenue-platform WebSocket channels',
      version: 'v1',
      description:
        'Spec §6: frames carry seq; subscribe first, then fetch the REST snapshot, then apply buffered updates; idle close after 60 s of inbound silence.',
    },
    servers: { public: { host: url.host, protocol: url.protocol === 'https:' ? 'wss' : 'ws' } },
    channels: Object.fromEntries(
      CHANNELS.map((c) => [
        key(c.path),
        {
          address: c.path,
          description: `${c.description} Topics: ${c.topics.join(', ')}. Auth: ${c.auth}.`,
          messages: Object.fromEntries(c.frames.map((f) => [f.name, message(f)])),
        },
      ]),
    ),
    operations: Object.fromEntries(
      CHANNELS.flatMap((c) => [
        [
          `${key(c.path)}_send`,
          {
            action: 'send',
            channel: { $ref: `#/channels/${key(c.path)}` },
            messages: c.frames
              .filter((f) => f.from === 'client')
              .map((f) => ({ $ref: `#/channels/${key(c.path)}/messages/${f.name}` })),
          },
        ],
        [
          `${key(c.path)}_receive`,
          {
            action: 'receive',
            channel: { $ref: `#/channels/${key(c.path)}` },
            messages: c.frames
              .filter((f) => f.from === 'server')
              .map((f) => ({ $ref: `#/channels/${key(c.path)}/messages/${f.name}` })),
          },
        ],
      ]),
    ),
  };
}
