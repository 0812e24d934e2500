/**
 * The mail outbox (issue 7): mail is written to `mail_outbox` in the transaction that decides to
 * send it, then handed to a transport (infra/mail.ts: SMTP, or the dev mailbox) by
 * {@link deliverOutbox} — right after the request that queued it, and again by every worker every
 * `MAIL_RETRY_MS` for mail whose send failed. Each row is claimed before it is sent (its
 * `next_attempt_at` moves 5 minutes ahead under `for update skip locked`), so concurrent senders
 * never send one mail twice while both are up; a failure counts an attempt, keeps the error and
 * retries after 30 s doubling to 1 h. At-least-once: a sender that dies between the SMTP accept
 * and the `sent_at` write sends that mail again after the claim lapses.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { platformEm } from './orm.js';

/** One mail of the outbox. */
export interface OutboxMail {
  id: string;
  to: string;
  subject: string;
  /** Plain text. */
  body: string;
  createdAt: Date;
}

/** Sends one mail; resolves with a reference (the SMTP Message-ID, or the mailbox file). Throws on any failure. */
export interface MailTransport {
  kind: 'smtp' | 'mailbox';
  send(mail: OutboxMail): Promise<{ ref: string }>;
}

/** How long a sender holds a claimed mail before another may take it (ms). */
export const MAIL_CLAIM_MS = 5 * 60_000;

/** Wait before retry `attempt` (1-based): 30 s doubling, at most 1 h (ms). */
export const mailRetryDelayMs = (attempt: number) => Math.min(30_000 * 2 ** (attempt - 1), 3_600_000);

/** Queues a mail in the caller's transaction; returns its id. */
export async function queueMail(
  em: EntityManager,
  mail: { to: string; subject: string; body: string },
): Promise<string> {
  const id = `mail_${randomBytes(8).toString('hex')}`;
  await em
    .getConnection()
    .execute(
      'insert into mail_outbox (id, to_address, subject, body) values (?, ?, ?, ?)',
      [id, mail.to, mail.subject, mail.body],
      'run',
      em.getTransactionContext(),
    );
  return id;
}

/** What one delivery pass did: mail sent (with the transport's reference) and mail that failed (kept for retry). */
export interface DeliveryReport {
  sent: { id: string; to: string; ref: string }[];
  failed: { id: string; to: string; error: string; attempts: number }[];
}

/** Sends every due mail (at most `limit`) through `transport`, one claim at a time. */
export async function deliverOutbox(orm: MikroORM, transport: MailTransport, limit = 100): Promise<DeliveryReport> {
  const conn = platformEm(orm).getConnection();
  const report: DeliveryReport = { sent: [], failed: [] };
  for (let i = 0; i < limit; i++) {
    const [m] = await conn.execute<
      { id: string; to_address: string; subject: string; body: string; created_at: Date; attempts: number }[]
    >(
      `update mail_outbox set next_attempt_at = now() + (? * interval '1 millisecond')
        where id = (select id from mail_outbox where sent_at is null and next_attempt_at <= now() order by created_at for update skip locked limit 1)
        returning id, to_address, subject, body, created_at, attempts`,
      [MAIL_CLAIM_MS],
    );
    if (!m) break;
    try {
      const { ref } = await transport.send({
        id: m.id,
        to: m.to_address,
        subject: m.subject,
        body: m.body,
        createdAt: new Date(m.created_at),
      });
      await conn.execute('update mail_outbox set sent_at = now(), message_id = ?, last_error = null where id = ?', [
        ref,
        m.id,
      ]);
      report.sent.push({ id: m.id, to: m.to_address, ref });
    } catch (err) {
      const error = (err instanceof Error ? err.message : String(err)).slice(0, 1000);
      const attempts = m.attempts + 1;
      await conn.execute(
        `update mail_outbox set attempts = ?, last_error = ?, next_attempt_at = now() + (? * interval '1 millisecond') where id = ?`,
        [attempts, error, mailRetryDelayMs(attempts), m.id],
      );
      report.failed.push({ id: m.id, to: m.to_address, error, attempts });
    }
  }
  return report;
}

/** Logs a delivery pass: each mail sent (info, with the transport's reference) and each failure (warn, kept for retry). */
export function logDelivery(logger: Logger, via: MailTransport['kind'], report: DeliveryReport): void {
  report.sent.forEach((m) => logger.info({ mailId: m.id, to: m.to, ref: m.ref, via }, 'mail sent'));
  report.failed.forEach((m) =>
    logger.warn({ mailId: m.id, to: m.to, error: m.error, attempts: m.attempts }, 'mail not sent; a worker retries it'),
  );
}
