/**
 * Mail delivery over SMTP (issue 7): the outbox keeps each mail's delivery attempts.
 * - `attempts`, `last_error`: failed sends so far and the newest failure (SMTP reply or network error).
 * - `next_attempt_at`: a claim and a backoff in one — a sender sets it ahead before it sends, so
 *   another process skips the row; a failure moves it to the retry time.
 * - `message_id`: the SMTP server's Message-ID once sent (the file name for the dev mailbox).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261123090000MailDelivery extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "mail_outbox" add column "attempts" int not null default 0, add column "last_error" text null, add column "next_attempt_at" timestamptz not null default now(), add column "message_id" text null`,
    );
    this.addSql(`create index "mail_outbox_unsent_index" on "mail_outbox" ("next_attempt_at") where "sent_at" is null`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "mail_outbox_unsent_index"`);
    this.addSql(
      `alter table "mail_outbox" drop column "attempts", drop column "last_error", drop column "next_attempt_at", drop column "message_id"`,
    );
  }
}
