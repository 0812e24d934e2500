/**
 * Webhooks (docs/api.md §6.4; issue 7, part):
 * - `webhook_endpoints`: an operator's receiver: `url`, the event kinds it takes (`events`, `["*"]`
 *   = all), the signing secret and optional static `x-api-key` sealed with the platform key ring
 *   (never returned after creation/rotation), `status` `enabled` | `disabled` (with the reason),
 *   and `last_event_id`: the account event up to which deliveries were started (the dispatcher's
 *   cursor; set to the newest event at creation, so an endpoint receives what happens after it).
 * - `webhook_deliveries`: one row per endpoint and event: `pending` → `delivered` | `failed`,
 *   attempts, the last HTTP status or error.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261123050000Webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "webhook_endpoints" ("id" varchar(255) not null primary key, "tenant_id" varchar(255) not null, "url" text not null, "events" jsonb not null, "sealed_secret" text not null, "sealed_api_key" text null, "status" varchar(16) not null default 'enabled' check ("status" in ('enabled', 'disabled')), "disabled_reason" text null, "disabled_at" timestamptz null, "last_event_id" bigint not null default 0, "secret_rotated_at" timestamptz null, "created_at" timestamptz not null default now())`,
    );
    this.addSql(`create index "webhook_endpoints_tenant_id_index" on "webhook_endpoints" ("tenant_id")`);
    this.addSql(
      `create table "webhook_deliveries" ("endpoint_id" varchar(255) not null references "webhook_endpoints" ("id") on delete cascade, "event_id" varchar(64) not null, "tenant_id" varchar(255) not null, "status" varchar(16) not null check ("status" in ('pending', 'delivered', 'failed')), "attempts" int not null default 0, "last_status" int null, "last_error" text null, "delivered_at" timestamptz null, "updated_at" timestamptz not null default now(), "created_at" timestamptz not null default now(), primary key ("endpoint_id", "event_id"))`,
    );
    this.addSql(`create index "webhook_deliveries_tenant_id_index" on "webhook_deliveries" ("tenant_id")`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "webhook_deliveries"`);
    this.addSql(`drop table if exists "webhook_endpoints"`);
  }
}
