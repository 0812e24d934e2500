/**
 * Webhooks skipped events that committed out of id order (found by `npm run chaos`): the dispatcher's
 * cursor was the highest `account_events.id` it had seen, and an event whose transaction took a lower id
 * but committed after a higher one was passed over for good. Each event now records its transaction
 * (`xact_id`, `pg_current_xact_id()` as a bigint by default), and the dispatcher reads only events of
 * transactions older than every one still running (`pg_snapshot_xmin`), in `(xact_id, id)` order, with a
 * cursor of both (worker/webhook-dispatcher.ts). Existing rows take this migration's transaction id, and
 * each endpoint's cursor is moved to it with its `last_event_id` kept, so nothing is delivered twice.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261127060000EventCommitOrder extends Migration {
  override async up(): Promise<void> {
    // bigint, not xid8: the cursor is bound and compared as a plain integer. (xid8 was blamed here for a range of
    // skipped events; the cause was the dispatcher ordering by its select list's text casts, since fixed.)
    this.addSql(
      `alter table "account_events" add column "xact_id" bigint not null default (pg_current_xact_id()::text::bigint)`,
    );
    this.addSql(`create index "account_events_tenant_xact_idx" on "account_events" ("tenant_id", "xact_id", "id")`);
    this.addSql(`alter table "webhook_endpoints" add column "last_xact_id" bigint not null default 0`);
    this.addSql(`update "webhook_endpoints" set "last_xact_id" = pg_current_xact_id()::text::bigint`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "webhook_endpoints" drop column "last_xact_id"`);
    this.addSql(`drop index if exists "account_events_tenant_xact_idx"`);
    this.addSql(`alter table "account_events" drop column "xact_id"`);
  }
}
