/**
 * Retries outbox mail (db/mail.ts) from every worker: every `intervalMs` (`MAIL_RETRY_MS`, default
 * 30 s) one delivery pass sends the mail that is due — mail whose first send (by the api, right
 * after queueing) failed, or whose sender died holding its claim. Passes never overlap. Each pass is
 * logged and counted in the worker's metrics (`platform_outbox_mail_total`, worker/metrics.ts).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { deliverOutbox, logDelivery, type MailTransport } from '../db/mail.js';
import type { WorkerMetrics } from './metrics.js';

export function startMailSender(opts: {
  orm: MikroORM;
  transport: MailTransport;
  intervalMs: number;
  logger: Logger;
  metrics: Pick<WorkerMetrics, 'mailPass'>;
}): { stop(): Promise<void> } {
  let pass: Promise<void> | undefined;
  const tick = () => {
    if (pass) return;
    pass = deliverOutbox(opts.orm, opts.transport)
      .then((report) => {
        logDelivery(opts.logger, opts.transport.kind, report);
        opts.metrics.mailPass(opts.transport.kind, report);
      })
      .catch((err: unknown) => opts.logger.error({ err }, 'mail outbox pass failed'))
      .finally(() => (pass = undefined));
  };
  const timer = setInterval(tick, opts.intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await pass;
    },
  };
}
