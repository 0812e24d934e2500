/**
 * The AsyncAPI 3.0 document of the WebSocket channels (docs/api.md §6), served at `/api/v1/asyncapi.json`:
 * every channel, its client frames, its server frames with their fields, and the topic patterns.
 * Built from one table so the document and the code list the same frames; each payload lists every field with
 * its JSON Schema and no other (`additionalProperties: false`), the REST views a `/ws/risk` frame carries as `data`
 * inlined from their zod schemas.
 */
import { z } from 'zod';
import { intentView } from '../domain/oms/intent.js';
import { fillSchema, positionSchema, tradeSchema } from './views.schemas.js';
import { RISK_TOPICS } from './ws/risk.js';
import { openOrdersView } from '../modules/accounts/routes/accounts/accounts.schemas.js';
import { bar, tradePrint } from '../modules/market/routes/market.schemas.js';

/** A field of a frame: its JSON Schema (description included) and whether the frame may leave it out. */
interface FieldDoc {
  schema: Record<string, unknown>;
  optional?: true;
}

/** A frame: name, direction and fields (name → schema); its payload lists exactly these fields besides `type`. */
interface FrameDoc {
  name: string;
  from: 'client' | 'server';
  fields: Record<string, FieldDoc>;
  description?: string;
}

/** A field of `schema`, described by `description` when there is one. */
const field = (schema: Record<string, unknown>, description = ''): FieldDoc => ({
  schema: { ...schema, ...(description ? { description } : {}) },
});
const str = (description = '') => field({ type: 'string' }, description);
const int = (description = '') => field({ type: 'integer' }, description);
const strs = (description = '') => field({ type: 'array', items: { type: 'string' } }, description);
const time = (description = 'ISO time') => field({ type: 'string', format: 'date-time' }, description);
/** The same field, which the frame may leave out. */
const optional = (f: FieldDoc): FieldDoc => ({ ...f, optional: true });
/** The JSON Schema (draft 7, output side) of a zod schema, inlined without the component ids of the OpenAPI document. */
const jsonSchemaOf = (schema: z.ZodType): Record<string, unknown> => {
  const { $schema: _drop, ...json } = z.toJSONSchema(schema, {
    target: 'draft-7',
    io: 'output',
    metadata: z.registry(),
  });
  return json;
};
/** A JSON Schema of a REST view (the OpenAPI component `id` names), inlined: frames carry it as `data`. */
const restView = (schema: z.ZodType, id: string): Record<string, unknown> => ({
  ...jsonSchemaOf(schema),
  description: `As REST shows it: the OpenAPI schema \`${id}\``,
});
/** `[price, size]` levels, decimal strings. */
const levels = (description: string) =>
  field({ type: 'array', items: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 2 } }, description);
/** The fields every `/ws/market` data frame carries. */
const marketFrame = (topic: string) => ({
  topic: str(topic),
  seq: int('per connection'),
  venue: str(),
  symbol: str(),
});
/** The fields every `/ws/risk` event frame carries (api/ws/risk.ts), with its `data`. */
const riskEvent = (topic: string, data: Record<string, unknown>) => ({
  topic: field({ const: topic }),
  seq: int('the account log sequence'),
  accountId: str(),
  event: str('the event kind, e.g. `intent.filled`'),
  occurredAt: time(),
  data: field(data),
});

/** A `Resync-Required` without `seq` (api/ws/outbox.ts unnumbered): what was dropped is named by `scope`. */
const resyncFrame = (scope: Record<string, FieldDoc>, description: string): FrameDoc => ({
  name: 'Resync-Required',
  from: 'server',
  fields: { reason: field({ const: 'slow_consumer' }), dropped: int('frames dropped from the backlog'), ...scope },
  description,
});

const COMMON: FrameDoc[] = [
  { name: 'Subscribe', from: 'client', fields: { topics: strs('non-empty array of topics') } },
  { name: 'Ping', from: 'client', fields: {}, description: 'Send every 30 s; exempt from the frame rate limit' },
  {
    name: 'Alive',
    from: 'client',
    fields: {},
    description: 'Legacy keep-alive, answered by Result { ok: true }; exempt from the rate limit',
  },
  { name: 'Pong', from: 'server', fields: { serverTime: time() } },
  {
    name: 'Result',
    from: 'server',
    fields: {
      ok: field({ type: 'boolean' }),
      topics: optional(strs('subscribed topics (on success)')),
      error: optional(
        str(
          'code (on failure): invalid_frame, invalid_json, topics_required, unknown_topic, rate_limited, token_required, token_invalid',
        ),
      ),
      detail: optional(str('text')),
    },
  },
  {
    name: 'Resync-Required',
    from: 'server',
    fields: {
      seq: int('frame sequence'),
      reason: field({ const: 'slow_consumer' }),
      dropped: int('frames dropped from the backlog'),
    },
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
      { name: 'Unsubscribe', from: 'client', fields: { topics: strs('topics to drop') } },
      {
        name: 'Authenticate',
        from: 'client',
        fields: { token: optional(str('handshake token from POST /api/auth/bootstrap')) },
      },
      {
        name: 'Authenticated',
        from: 'server',
        fields: {
          tenantId: str('the tenant the socket is attached to'),
          accountId: field({ type: ['string', 'null'] }, "the handshake token's account"),
        },
        description: 'Answers Authenticate: the frame budget is doubled',
      },
      {
        name: 'L2-Book',
        from: 'server',
        fields: {
          ...marketFrame('l2Book:…'),
          bookSeq: int('book version'),
          ts: time(),
          bids: levels('[price, size][] best first'),
          asks: levels('[price, size][] best first'),
        },
      },
      {
        name: 'L2-Delta',
        from: 'server',
        fields: {
          ...marketFrame('l2Delta:…'),
          bookSeq: int('version after the delta'),
          prevBookSeq: field({ type: ['integer', 'null'] }, 'version it applies to'),
          ts: time(),
          bids: levels('changed levels; size "0" removes'),
          asks: levels('changed levels'),
        },
      },
      {
        name: 'Bbo',
        from: 'server',
        fields: { ...marketFrame('bbo:…'), bid: str('USD'), ask: str('USD'), mark: str('USD'), ts: time() },
      },
      {
        name: 'Trades',
        from: 'server',
        fields: {
          ...marketFrame('trades:…'),
          prints: field(jsonSchemaOf(z.array(tradePrint)), '[{ tradeId, ts, price, size, side (aggressor) }]'),
        },
      },
      {
        name: 'Volume-At-Price',
        from: 'server',
        fields: {
          ...marketFrame('volumeAtPrice:…'),
          ts: time(),
          bucket: str('bucket width USD (10 ticks)'),
          levels: field(
            {
              type: 'array',
              items: {
                type: 'object',
                required: ['price', 'buyVolume', 'sellVolume'],
                properties: {
                  price: { type: 'string' },
                  buyVolume: { type: 'string' },
                  sellVolume: { type: 'string' },
                },
                additionalProperties: false,
              },
            },
            '[{ price, buyVolume, sellVolume }] over the kept tape',
          ),
          prints: int('prints counted'),
        },
      },
      {
        name: 'Candle',
        from: 'server',
        fields: {
          ...marketFrame('candle:…:<interval>'),
          interval: field({ enum: ['1m', '1h'] }, '1m | 1h'),
          bar: field(jsonSchemaOf(bar), 'a bar as `GET /market/candles` shows it (the OpenAPI schema `Candles`)'),
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
        { topics: strs('pairs whose quotes were dropped') },
        "No seq (quotes carry their pair's): re-fetch the REST quote of topics, then apply the frames that follow",
      ),
      { name: 'Unsubscribe', from: 'client', fields: { topics: strs() } },
      {
        name: 'Quote',
        from: 'server',
        fields: {
          seq: int("the pair's quote number on this api process, the same on every socket"),
          venue: str(),
          symbol: str(),
          mark: str('USD'),
          bid: str('USD'),
          ask: str('USD'),
          ts: time(),
        },
      },
    ],
  },
  {
    path: '/ws/risk',
    auth: 'required: Authenticate { token } first (docs/api.md §6.2); a service_session cookie on the upgrade request authenticates at connect (Authenticated arrives unasked; closes with session_ended, 4401, when the session ends)',
    topics: [...RISK_TOPICS],
    description:
      'Account state, working orders, positions and fills from the account event log; seq is the account log sequence.',
    frames: [
      ...COMMON.filter((f) => f.name !== 'Resync-Required' && f.name !== 'Subscribe'),
      {
        name: 'Subscribe',
        from: 'client',
        fields: { topics: field({ type: 'array', items: { enum: RISK_TOPICS }, minItems: 1 }, 'topics to receive') },
      },
      resyncFrame(
        { accountIds: strs('accounts whose frames were dropped') },
        'No seq (event frames keep the account log sequence): re-fetch the REST snapshots of accountIds, then apply the frames that follow',
      ),
      { name: 'Authenticate', from: 'client', fields: { token: optional(str('handshake token')) } },
      {
        name: 'Authenticated',
        from: 'server',
        fields: {
          tenantId: str(),
          accountId: optional(
            field(
              { type: ['string', 'null'] },
              "the handshake token's account; absent when a session cookie re-answers",
            ),
          ),
          accountIds: strs('every account of the socket'),
        },
      },
      {
        name: 'Order-Intent-Update',
        from: 'server',
        fields: riskEvent('Order-Intent-Changed', restView(intentView, 'OrderIntent')),
      },
      {
        name: 'Open-Orders-Update',
        from: 'server',
        fields: riskEvent('Order-Intent-Changed', {
          ...restView(openOrdersView.extend({ accountId: z.string() }), 'WorkingOrder'),
          description: 'Every working order of the account (as REST shows them: the OpenAPI schema `WorkingOrder`)',
        }),
      },
      {
        name: 'Position-Changed',
        from: 'server',
        fields: riskEvent('Position-Changed', restView(positionSchema, 'Position')),
      },
      {
        name: 'Fill',
        from: 'server',
        fields: riskEvent('Fills', {
          ...restView(z.union([fillSchema, tradeSchema]), 'Fill'),
          description:
            'The fill as REST shows it (the OpenAPI schema `Fill`); an imported manual trade (`trade.imported`) as `Trade`',
        }),
      },
      {
        name: 'Funding-Update',
        from: 'server',
        fields: riskEvent('Funding', {
          type: 'object',
          required: ['type'],
          properties: { type: { type: 'string' }, amountUsd: { type: 'string' } },
          additionalProperties: true,
          description:
            'deposit, withdrawal, transfer (amountUsd signed per account), a funding operation held for approval (type requested) or rejected, or a funding payment ({ type, amountUsd, operationId?, ... }); further fields depend on type',
        }),
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
      required: ['type', ...Object.keys(f.fields).filter((k) => !f.fields[k].optional)],
      properties: {
        type: { const: f.name },
        ...Object.fromEntries(Object.entries(f.fields).map(([k, d]) => [k, d.schema])),
      },
      additionalProperties: false,
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
