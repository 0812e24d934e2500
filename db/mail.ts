/**
 * The mail outbox (issue 7): mail is written to `mail_outbox` in the transaction that decides to
 * send it, then delivered by {@link deliverOutbox}: to the dev mailbox, one readable `.txt` file
 * per mail under `mailDir` (`MAIL_DIR`, default `.data/mail/`). SMTP is not wired (no SMTP library
 * in the stack yet): outside dev the rows wait in the outbox.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { platformEm } from './orm.js';

/** Queues a mail in the caller's transaction; returns its id. */
export async function queueMail(em: EntityManager, mail: { to: string; subject: string; body: string }): Promise<string> {
  const id = `mail_${randomBytes(8).toString('hex')}`;
  await em.getConnection().execute('insert into mail_outbox (id, to_address, subject, body) values (?, ?, ?, ?)', [id, mail.to, mail.subject, mail.body], 'run', em.getTransactionContext());
  return id;
}

/** Writes every unsent mail to `mailDir` (`<created>-<id>.txt`) and marks it sent; returns the files written. */
export async function deliverOutbox(orm: MikroORM, mailDir: string): Promise<string[]> {
  const conn = platformEm(orm).getConnection();
  const rows = await conn.execute<{ id: string; to_address: string; subject: string; body: string; created_at: Date }[]>('select * from mail_outbox where sent_at is null order by created_at limit 100');
  if (!rows.length) return [];
  await mkdir(mailDir, { recursive: true });
  const files: string[] = [];
  for (const m of rows) {
    const file = path.join(mailDir, `${new Date(m.created_at).toISOString().replace(/[:.]/g, '-')}-${m.id}.txt`);
    await writeFile(file, `To: ${m.to_address}\nSubject: ${m.subject}\nDate: ${new Date(m.created_at).toUTCString()}\n\n${m.body}\n`);
    await conn.execute('update mail_outbox set sent_at = now() where id = ? and sent_at is null', [m.id]);
    files.push(file);
  }
  return files;
}
