/**
 * The api process's Prometheus metrics (README "Operating it → Metrics"), on a registry of its own
 * (one per `startApi`, so test stacks never share counters), served by `GET /metrics` (api/ops/routes.ts):
 * HTTP request durations (api/ops/http-metrics.ts), open WebSockets and their frames (api/ws/*), compose
 * outcomes, idempotent replays, and prom-client's default process metrics (`process_*`, `nodejs_*`).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { WebSocket } from 'ws';
import type { FrameMeter } from '../ws/outbox.js';

/** The WebSocket channels, as the `channel` label names them. */
export const WS_CHANNELS = ['risk', 'quotes', 'market'] as const;
export type WsChannel = (typeof WS_CHANNELS)[number];

/** The api's metrics and the registry that renders them. */
export interface ApiMetrics {
  registry: Registry;
  /** `platform_http_request_duration_seconds{method, route, status}`: `route` is the matched route template or `unmatched`. */
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** `platform_oms_compose_total{outcome}`: `POST /api/v1/oms/intents` answers, `created` or the refusal's error code. */
  composeOutcomes: Counter<'outcome'>;
  /** `platform_idempotency_replays_total{route}`: stored answers replayed for a repeated `Idempotency-Key`. */
  idempotencyReplays: Counter<'route'>;
  /**
   * `platform_auth_secret_checks_total{outcome}`: API secrets checked (one scrypt each, ~50 ms of CPU) by the mint,
   * `ok` or `failed`; a check refused by the failed-check limit (docs/api.md §8) runs no scrypt and is not counted.
   */
  secretChecks: Counter<'outcome'>;
  /** Counts `ws` as open on `channel` until it closes; returns the meter its frames are counted with. */
  socket(ws: WebSocket, channel: WsChannel): FrameMeter;
}

/** Creates a registry with the api's metrics and the default process metrics. */
export function createApiMetrics(): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const open = new Gauge({
    name: 'platform_ws_open_sockets',
    help: 'WebSocket connections open now, by channel',
    labelNames: ['channel'],
    registers,
  });
  const sent = new Counter({
    name: 'platform_ws_frames_sent_total',
    help: 'Frames written to WebSocket clients (data and control), by channel',
    labelNames: ['channel'],
    registers,
  });
  const dropped = new Counter({
    name: 'platform_ws_frames_dropped_total',
    help: 'Frames never written: replaced by a newer one of the same topic (coalesced) or dropped with the backlog of a slow consumer (slow_consumer), by channel',
    labelNames: ['channel', 'reason'],
    registers,
  });
  for (const channel of WS_CHANNELS) {
    open.set({ channel }, 0);
    sent.inc({ channel }, 0);
  }
  return {
    registry,
    httpDuration: new Histogram({
      name: 'platform_http_request_duration_seconds',
      help: 'HTTP request duration (s), by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    composeOutcomes: new Counter({
      name: 'platform_oms_compose_total',
      help: 'POST /api/v1/oms/intents answers: created, or the error code of the refusal',
      labelNames: ['outcome'],
      registers,
    }),
    idempotencyReplays: new Counter({
      name: 'platform_idempotency_replays_total',
      help: 'Answers replayed for a repeated Idempotency-Key, by route template',
      labelNames: ['route'],
      registers,
    }),
    secretChecks: new Counter({
      name: 'platform_auth_secret_checks_total',
      help: 'API secrets checked (one scrypt each) by the token mint, by outcome: ok or failed',
      labelNames: ['outcome'],
      registers,
    }),
    socket(ws, channel) {
      open.inc({ channel });
      ws.once('close', () => open.dec({ channel }));
      return {
        sent: () => sent.inc({ channel }),
        dropped: (reason, frames) => dropped.inc({ channel, reason }, frames),
      };
    },
  };
}
