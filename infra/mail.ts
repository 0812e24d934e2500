/**
 * Where outbox mail goes (issue 7; db/mail.ts delivers through a {@link MailTransport}): SMTP through
 * nodemailer when `SMTP_URL` is configured (`smtp://user:pass@host:587` with STARTTLS when offered,
 * `smtps://…:465` for implicit TLS), else the dev mailbox — one readable `.txt` file per mail under
 * `MAIL_DIR`. Shared by the api (signup flushes its mail at once) and the worker (the mail sender).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { MailTransport } from '../db/mail.js';

/** SMTP: one pooled nodemailer transport; a send that takes longer than `timeoutMs` (default 60 s) fails. */
export function smtpTransport(url: string, from: string, timeoutMs = 60_000): MailTransport {
  const transport = nodemailer.createTransport(url, { from });
  // Timeouts are per connection phase; a hung server must not hold an outbox claim (5 minutes) forever.
  Object.assign(transport.options, {
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  return {
    kind: 'smtp',
    async send(m) {
      const info = await transport.sendMail({
        to: m.to,
        subject: m.subject,
        text: m.body,
        date: m.createdAt,
        headers: { 'X-Outbox-Id': m.id },
      });
      if (info.rejected.length) throw new Error(`rejected by the SMTP server: ${info.rejected.join(', ')}`);
      return { ref: info.messageId };
    },
  };
}

/** The dev mailbox: `<dir>/<created>-<id>.txt` with To, Subject and Date headers, then the body. */
export function mailboxTransport(dir: string): MailTransport {
  return {
    kind: 'mailbox',
    async send(m) {
      await mkdir(dir, { recursive: true });
      const file = path.join(dir, `${m.createdAt.toISOString().replace(/[:.]/g, '-')}-${m.id}.txt`);
      await writeFile(file, `To: ${m.to}\nSubject: ${m.subject}\nDate: ${m.createdAt.toUTCString()}\n\n${m.body}\n`);
      return { ref: file };
    },
  };
}

/** The transport the configuration names: SMTP when `smtpUrl` is set, else the dev mailbox. */
export function mailTransport(mail: { smtpUrl: string | null; from: string; mailDir: string }): MailTransport {
  return mail.smtpUrl ? smtpTransport(mail.smtpUrl, mail.from) : mailboxTransport(mail.mailDir);
}
