/**
 * The worker process's Prometheus metrics (README "Operating it → Metrics"), on a registry of its own
 * (one per `createWorker`): what its activities report (activities/metrics.ts), what its outbox mail
 * passes send, and prom-client's default process metrics. Served by the worker's ops server
 * (worker/ops-server.ts) together with the Temporal SDK's own metrics when the process installed them.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { TERMINAL_STATES } from '../domain/oms/intent.js';
import type { ActivityMetrics, WebhookOutcome } from '../activities/metrics.js';
import type { DeliveryReport, MailTransport } from '../db/mail.js';

/** Bucket bounds of the dispatch latency histogram (s): a paper fill takes milliseconds, a venue round trip up to seconds. */
const DISPATCH_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const WEBHOOK_OUTCOMES: WebhookOutcome[] = ['delivered', 'failed', 'skipped', 'exhausted'];

/** The worker's metrics: the activities' reports plus outbox mail, and the registry that renders them. */
export interface WorkerMetrics extends ActivityMetrics {
  registry: Registry;
  /** Counts one outbox delivery pass of this worker (worker/mail-sender.ts): mail sent and mail failed (kept for retry). */
  mailPass(via: MailTransport['kind'], report: DeliveryReport): void;
}

/** Creates a registry with the worker's metrics and the default process metrics. */
export function createWorkerMetrics(): WorkerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const terminal = new Counter({
    name: 'platform_intents_terminal_total',
    help: 'Intents that reached a terminal state (filled, canceled, rejected), by venue and state',
    labelNames: ['venue', 'state'],
    registers,
  });
  const dispatch = new Histogram({
    name: 'platform_venue_dispatch_seconds',
    help: 'Duration of one dispatch activity attempt (s): the paper engine, or a routed venue round trip, by venue',
    labelNames: ['venue'],
    buckets: DISPATCH_BUCKETS,
    registers,
  });
  const webhooks = new Counter({
    name: 'platform_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (delivered, failed, skipped), and deliveries whose retry budget was spent (exhausted)',
    labelNames: ['outcome'],
    registers,
  });
  const mail = new Counter({
    name: 'platform_outbox_mail_total',
    help: "Outbox mail this worker's retry passes handed to the transport, by result (sent, failed) and transport (smtp, mailbox)",
    labelNames: ['result', 'transport'],
    registers,
  });
  for (const state of TERMINAL_STATES) terminal.inc({ venue: 'paper', state }, 0);
  for (const outcome of WEBHOOK_OUTCOMES) webhooks.inc({ outcome }, 0);
  return {
    registry,
    intentTerminal: (venue, state) => terminal.inc({ venue, state }),
    dispatchSeconds: (venue, seconds) => dispatch.observe({ venue }, seconds),
    webhook: (outcome) => webhooks.inc({ outcome }),
    mailPass(via, report) {
      mail.inc({ result: 'sent', transport: via }, report.sent.length);
      mail.inc({ result: 'failed', transport: via }, report.failed.length);
    },
  };
}
