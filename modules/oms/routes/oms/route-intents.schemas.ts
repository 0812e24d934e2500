/**
 * Schemas of `POST /api/v1/oms/route-intents` (docs/api.md §4.4 route-intents), modules/oms/routes/oms/route-intents.ts.
 * The decision it answers is modules/oms/routes/sor.schemas.ts `decisionView`.
 */
import { z } from 'zod';
import { positiveDecimal } from '../../../../domain/oms/decimal-input.js';
import { candidateView, decisionView } from '../sor.schemas.js';
import { errorBody } from '../../../../api/openapi.js';

/** `POST /api/v1/oms/route-intents` (docs/api.md §4.4). */
export const routeIntentBody = z
  .object({
    asset: z.string().trim().min(1).max(128).meta({
      description:
        'The bare asset (`BTC`), not a venue symbol. Prediction markets: the outcome (`TRUMP-INAUGURATED-YES`).',
      example: 'BTC',
    }),
    side: z.enum(['buy', 'sell']),
    qty: positiveDecimal.meta({
      description:
        'Size in contracts (base units, or outcome shares); a venue whose lot size it does not fit is skipped (`lot_size`)',
      example: '0.01',
    }),
    type: z.literal('market').default('market').meta({ description: 'Must be `market`' }),
    reduceOnly: z.boolean().default(false),
    leverage: z.number().positive().max(1000).default(1).meta({
      description:
        "As on compose: above a symbol's maximum the venue is skipped (`leverage_above_cap`); the trading-group cap is checked at compose",
    }),
    clientId: z.string().max(128).optional().meta({ description: 'As on compose' }),
    validForMs: z
      .number()
      .int()
      .min(100)
      .max(600_000)
      .optional()
      .meta({ description: 'Only quotes at most this old (ms) are used; default the deployment’s mark age limit' }),
  })
  .meta({ id: 'RouteIntent' });

export const routeIntentResponse = z
  .object({ intentId: z.string(), decision: decisionView })
  .meta({ id: 'RoutedIntent' });

const routingErrorView = z
  .object({
    error: z.enum(['asset_unknown', 'no_quotes', 'no_eligible_venue']).meta({
      description:
        '`asset_unknown`: no candidate lists the asset; `no_quotes`: every venue that lists it lacks a fresh quote; `no_eligible_venue`: otherwise',
    }),
    detail: z.string(),
    candidates: z.array(candidateView),
  })
  .meta({ id: 'RoutingError' });

/** The `400` of a route-intent: a routing refusal with its candidates, or another refusal (`routing_disabled`, `validation_failed`). */
export const routingRefusalView = z.union([routingErrorView, errorBody]);
