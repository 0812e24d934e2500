/**
 * The order intent of docs/api.md §2.6 and its lifecycle of docs/api.md §3.1.
 *
 * States: `intent_pending` → `signed_pending_dispatch` → `dispatched` → `filled`, and the dead
 * states `canceled` and `rejected` (spec: "a dead state also exists"). A platform-signed
 * credential's intent starts in `signed_pending_dispatch` and proceeds by itself.
 */
import { z } from 'zod';
import { positiveDecimal } from './decimal-input.js';

/** Every venue compose accepts (docs/api.md §2.6): each one is wired in this deployment. */
export const COMPOSE_VENUES = ['hyperliquid', 'aster', 'polymarket', 'kalshi', 'paper'] as const;

/** Venues dispatched to a real exchange with the account's agent key (the compose venues minus `paper`; docs/api.md §1). */
export const ROUTED_VENUES = ['hyperliquid', 'aster', 'polymarket', 'kalshi'] as const;
/** One of {@link ROUTED_VENUES}. */
export type RoutedVenue = (typeof ROUTED_VENUES)[number];

/** True for a venue the platform routes to an exchange (not `paper`). */
export const isRouted = (venue: string): venue is RoutedVenue => (ROUTED_VENUES as readonly string[]).includes(venue);

export const ORDER_TYPES = ['market', 'limit', 'stop', 'stop_limit', 'take_profit'] as const;
export const TIME_IN_FORCE = ['Gtc', 'Ioc', 'Alo'] as const;

/** Intent states of docs/api.md §3.1, in order, then the dead states. */
export const INTENT_STATES = [
  'intent_pending',
  'signed_pending_dispatch',
  'dispatched',
  'filled',
  'canceled',
  'rejected',
] as const;
export type IntentState = (typeof INTENT_STATES)[number];
/** States after which nothing more happens to an intent. */
export const TERMINAL_STATES: readonly IntentState[] = ['filled', 'canceled', 'rejected'];

/** Venue order statuses of docs/api.md §3.2 (the `orderStatus` field and the order-history filter). */
export const ORDER_STATUSES = ['open', 'filled', 'canceled', 'rejected', 'triggered', 'expired'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Which price fields each order type needs (a table, not a ladder). */
export const REQUIRED_PRICES: Record<(typeof ORDER_TYPES)[number], ('price' | 'triggerPrice' | 'stopLimitPrice')[]> = {
  market: [],
  limit: ['price'],
  stop: ['triggerPrice'],
  stop_limit: ['triggerPrice', 'stopLimitPrice'],
  take_profit: ['triggerPrice'],
};

/** The order of the examples (OpenAPI): a limit buy of 0.01 BTC at 64,250.5 USD on the paper venue. */
const LIMIT_BUY_EXAMPLE = {
  venue: 'paper',
  symbol: 'BTC.PAPER',
  side: 'buy',
  type: 'limit',
  qty: '0.01',
  price: '64250.5',
} as const;

/**
 * The compose request of docs/api.md §2.6. Sizes and prices: decimal strings or numbers, output as
 * canonical decimal strings. `b3` and `trailing_stop` are refused with field issues; a
 * `stop_limit` without `stopLimitPrice` carries the issue code `stopLimitPrice_required`.
 */
export const composeIntentBody = z
  .object({
    venue: z
      .enum(COMPOSE_VENUES)
      .meta({ description: 'Venue slug. `b3` is refused at compose: paper B3 orders use `paper`.' }),
    symbol: z
      .string()
      .min(1)
      .max(64)
      .meta({ description: 'Venue-suffixed symbol from GET /api/v1/symbols/{venue}', example: 'BTC.PAPER' }),
    side: z.enum(['buy', 'sell']),
    type: z.enum(ORDER_TYPES).meta({ description: '`trailing_stop` is not accepted' }),
    qty: positiveDecimal.meta({ description: 'Size in contracts (base units)', example: '0.01' }),
    price: positiveDecimal
      .optional()
      .meta({ description: 'Limit price, USD. Required for `limit`.', example: '64250.5' }),
    triggerPrice: positiveDecimal.optional().meta({
      description: 'Trigger price, USD. Required for `stop`, `stop_limit`, `take_profit`.',
      example: '63800',
    }),
    stopLimitPrice: positiveDecimal
      .optional()
      .meta({ description: 'Resting limit price of a `stop_limit`, USD.', example: '63750' }),
    reduceOnly: z.boolean().default(false),
    timeInForce: z.enum(TIME_IN_FORCE).default('Gtc'),
    leverage: z
      .number()
      .positive()
      .max(1000)
      .default(1)
      .meta({ description: 'Checked against the trading group cap for the venue' }),
    accountId: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .meta({ description: "Defaults to the credential's active account" }),
    clientOrderId: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .meta({ description: 'Echoed on the response and on /ws/risk frames' }),
    asterTimeInForce: z.string().max(32).optional(),
    asterKind: z.string().max(32).optional(),
    clientId: z.string().max(255).optional(),
  })
  .superRefine((b, ctx) => {
    for (const field of REQUIRED_PRICES[b.type]) {
      if (b[field] === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `${field} is required for ${b.type} orders`,
          params: { code: field === 'stopLimitPrice' ? 'stopLimitPrice_required' : `${field}_required` },
        });
      }
    }
  })
  .meta({
    id: 'ComposeIntent',
    example: {
      ...LIMIT_BUY_EXAMPLE,
      timeInForce: 'Gtc',
      leverage: 5,
      clientOrderId: 'grid-btc-42',
    },
  });
export type ComposeIntent = z.output<typeof composeIntentBody>;

/** An example {@link intentView}: a limit buy resting on the paper venue, for the OpenAPI document. */
export const INTENT_EXAMPLE = {
  intentId: 'int_7f3a9c2e41b85d06e1c4',
  accountId: 'acc_3b81f0c29d6e4a7512ce',
  clientOrderId: 'grid-btc-42',
  ...LIMIT_BUY_EXAMPLE,
  triggerPrice: null,
  stopLimitPrice: null,
  reduceOnly: false,
  timeInForce: 'Gtc',
  leverage: '5',
  state: 'dispatched',
  orderStatus: 'open',
  venueOrderId: '91827364501',
  filledQty: '0',
  avgFillPrice: null,
  lastEvent: 'intent.dispatched',
  rejectReason: null,
  createdAt: '2026-05-14T09:30:00.000Z',
  updatedAt: '2026-05-14T09:30:00.125Z',
} as const;

/** An intent as the API shows it (GET /oms/intents/{id}, compose response, `Order-Intent-Update`). */
export const intentView = z
  .object({
    intentId: z.string(),
    accountId: z.string(),
    clientOrderId: z.string().nullable(),
    venue: z.string(),
    symbol: z.string(),
    side: z.enum(['buy', 'sell']),
    type: z.enum(ORDER_TYPES),
    qty: z.string(),
    price: z.string().nullable(),
    triggerPrice: z.string().nullable(),
    stopLimitPrice: z.string().nullable(),
    reduceOnly: z.boolean(),
    timeInForce: z.enum(TIME_IN_FORCE),
    leverage: z.string(),
    state: z.enum(INTENT_STATES),
    orderStatus: z.enum(ORDER_STATUSES).nullable(),
    venueOrderId: z.string().nullable(),
    filledQty: z.string(),
    avgFillPrice: z.string().nullable(),
    lastEvent: z.string(),
    rejectReason: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'OrderIntent', example: INTENT_EXAMPLE });
export type IntentView = z.infer<typeof intentView>;
