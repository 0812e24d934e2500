/**
 * Outbox mail over SMTP (issue 7): a real SMTP server (smtp-server, with AUTH) receives the signup
 * mail; the token it carries verifies the tenant. A server that refuses a recipient for a while
 * leaves the mail queued with the reply, and the worker's retry pass sends it once the server
 * recovers; concurrent senders never send one mail twice; a wrong password is a kept failure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { deliverOutbox, queueMail } from '../../db/mail.js';
import { platformEm } from '../../db/orm.js';
import { smtpTransport } from '../../infra/mail.js';
import { startStack, type Stack } from '../support/stack.js';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** Decodes a quoted-printable body (soft line breaks and `=XX`). */
const unQp = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

describe('outbox mail over SMTP', () => {
  let s: Stack;
  let server: SMTPServer;
  let port: number;
  const received: Received[] = [];
  /** Recipients refused with `451` while their count is above zero (a temporary failure). */
  const refuse = new Map<string, number>();

  beforeAll(async () => {
    server = new SMTPServer({
      secure: false,
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      onAuth(auth, _session, cb) {
        return auth.username === 'mailer' && auth.password === 's3cret'
          ? cb(null, { user: 'mailer' })
          : cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
      },
      onRcptTo(address, _session, cb) {
        const left = refuse.get(address.address) ?? 0;
        if (left > 0) {
          refuse.set(address.address, left - 1);
          return cb(Object.assign(new Error('mailbox busy, try later'), { responseCode: 451 }));
        }
        cb();
      },
      onData(stream, session, cb) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: unQp(Buffer.concat(chunks).toString('utf8')),
          });
          cb();
        });
      },
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.server.address() as AddressInfo).port;
    s = await startStack({
      env: {
        SMTP_URL: `smtp://mailer:s3cret@127.0.0.1:${port}`,
        MAIL_FROM: 'Platform <no-reply@platform.example>',
        MAIL_RETRY_MS: '200',
      },
    });
  });
  afterAll(async () => {
    await s?.stop();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const outboxRow = async (to: string) =>
    (
      await platformEm(s.orm)
        .getConnection()
        .execute<{ sent_at: Date | null; attempts: number; last_error: string | null; message_id: string | null }[]>(
          'select sent_at, attempts, last_error, message_id from mail_outbox where to_address = ?',
          [to],
        )
    )[0];
  const slug = () => `smtp-${randomBytes(3).toString('hex')}`;

  it('sends the signup mail over SMTP with AUTH; its token verifies the tenant', async () => {
    const email = `owner-${randomBytes(3).toString('hex')}@partner.example`;
    const res = await s.call('POST', '/api/public/tenants/signup', { body: { email, slug: slug() } });
    expect(res.status).toBe(202);
    await expect.poll(() => received.filter((m) => m.to.includes(email)).length).toBe(1);
    const mail = received.find((m) => m.to.includes(email))!;
    expect(mail.from).toBe('no-reply@platform.example');
    expect(mail.raw).toMatch(/^Subject: Verify smtp-/m);
    const token = /"token":"([A-Za-z0-9_-]+)"/.exec(mail.raw)![1];
    const verified = await s.call('POST', '/api/public/tenants/verify', { body: { token } });
    expect(verified.status).toBe(201);
    const row = await outboxRow(email);
    expect(row.sent_at).not.toBeNull();
    expect(row.message_id).toMatch(/^<.+@.+>$/);
    // The invite goes out the same way.
    await expect.poll(() => received.filter((m) => m.to.includes(email)).length).toBe(2);
  });

  it('keeps a temporarily refused mail with the reply, and the worker sends it once the server takes it', async () => {
    const email = `flaky-${randomBytes(3).toString('hex')}@partner.example`;
    refuse.set(email, 1);
    expect((await s.call('POST', '/api/public/tenants/signup', { body: { email, slug: slug() } })).status).toBe(202);
    await expect.poll(async () => (await outboxRow(email)).attempts).toBe(1);
    const failed = await outboxRow(email);
    expect(failed.sent_at).toBeNull();
    expect(failed.last_error).toMatch(/451/);
    expect(received.some((m) => m.to.includes(email))).toBe(false);
    // The retry is due in 30 s; bring it forward, and the worker's next pass (every 200 ms here) sends it.
    await platformEm(s.orm)
      .getConnection()
      .execute('update mail_outbox set next_attempt_at = now() where to_address = ?', [email]);
    await expect.poll(async () => (await outboxRow(email)).sent_at, { timeout: 5_000 }).not.toBeNull();
    expect(received.filter((m) => m.to.includes(email))).toHaveLength(1);
  });

  it('concurrent senders (three passes and the worker) send each mail exactly once', async () => {
    const batch = `burst-${randomBytes(3).toString('hex')}`;
    const to = Array.from({ length: 20 }, (_, i) => `${batch}-${i}@partner.example`);
    await platformEm(s.orm).transactional(async (em) => {
      for (const address of to) await queueMail(em, { to: address, subject: 'burst', body: 'hello' });
    });
    const transport = smtpTransport(s.config.mail.smtpUrl!, s.config.mail.from);
    const reports = await Promise.all([
      deliverOutbox(s.orm, transport),
      deliverOutbox(s.orm, transport),
      deliverOutbox(s.orm, transport),
    ]);
    // Three passes here and the worker's pass race for the same rows.
    const sentHere = reports.flatMap((r) => r.sent.map((m) => m.to)).filter((a) => a.startsWith(batch));
    expect(new Set(sentHere).size).toBe(sentHere.length);
    const unsent = () =>
      platformEm(s.orm)
        .getConnection()
        .execute<{ n: number }[]>(
          `select count(*)::int as n from mail_outbox where to_address like ? and sent_at is null`,
          [`${batch}-%`],
        );
    await expect.poll(async () => (await unsent())[0].n).toBe(0);
    await new Promise((r) => setTimeout(r, 500)); // a duplicate would arrive by now
    const got = received.filter((m) => m.to[0].startsWith(batch)).map((m) => m.to[0]);
    expect(got.sort()).toEqual([...to].sort());
  });

  it('a wrong SMTP password is a failure kept on the mail, not a loss', async () => {
    await s.stopWorker(); // this pass alone handles the mail
    const email = `authfail-${randomBytes(3).toString('hex')}@partner.example`;
    await platformEm(s.orm).transactional((em) => queueMail(em, { to: email, subject: 'auth', body: 'x' }));
    const report = await deliverOutbox(
      s.orm,
      smtpTransport(`smtp://mailer:wrong@127.0.0.1:${port}`, s.config.mail.from),
    );
    expect(report.sent.map((m) => m.to)).not.toContain(email);
    expect(report.failed.find((m) => m.to === email)).toMatchObject({
      attempts: 1,
      error: expect.stringMatching(/535/),
    });
    expect(await outboxRow(email)).toMatchObject({
      sent_at: null,
      attempts: 1,
      last_error: expect.stringMatching(/535/),
    });
    expect(received.some((m) => m.to.includes(email))).toBe(false);
  });
});
