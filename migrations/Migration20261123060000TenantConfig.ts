/**
 * White-label tenant configuration and self-serve signup (docs/api.md §2.4, §3.4, §4.1, §4.2; issue 7, part):
 * - `tenants.branding`, `theme`, `flags`, `venues`, `plan` (jsonb; defaults in
 *   domain/tenant/config.ts apply while a column is empty `{}`).
 * - `tenant_signups`: an email and a slug waiting for the emailed token (stored as its SHA-256),
 *   24 h; `tenant_id` once verified.
 * - `tenant_invites`: the admin invite a verified signup creates (token as SHA-256, 7 days).
 * - `mail_outbox`: every mail the platform sends, written in the transaction that decides to send
 *   it; `sent_at` once handed to SMTP or written to the dev mailbox.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261123060000TenantConfig extends Migration {
  override async up(): Promise<void> {
    for (const col of ['branding', 'theme', 'flags', 'venues', 'plan'])
      this.addSql(`alter table "tenants" add column "${col}" jsonb not null default '{}'`);
    this.addSql(
      `create table "tenant_signups" ("id" varchar(255) not null primary key, "email" varchar(320) not null, "slug" varchar(63) not null, "token_hash" varchar(64) not null unique, "expires_at" timestamptz not null, "verified_at" timestamptz null, "tenant_id" varchar(255) null, "created_at" timestamptz not null default now())`,
    );
    this.addSql(`create index "tenant_signups_slug_index" on "tenant_signups" ("slug")`);
    this.addSql(
      `create table "tenant_invites" ("id" varchar(255) not null primary key, "tenant_id" varchar(255) not null, "email" varchar(320) not null, "role" varchar(32) not null, "token_hash" varchar(64) not null unique, "expires_at" timestamptz not null, "accepted_at" timestamptz null, "created_at" timestamptz not null default now())`,
    );
    this.addSql(
      `create table "mail_outbox" ("id" varchar(255) not null primary key, "to_address" varchar(320) not null, "subject" text not null, "body" text not null, "sent_at" timestamptz null, "created_at" timestamptz not null default now())`,
    );
  }

  override async down(): Promise<void> {
    for (const t of ['mail_outbox', 'tenant_invites', 'tenant_signups']) this.addSql(`drop table if exists "${t}"`);
    for (const col of ['branding', 'theme', 'flags', 'venues', 'plan'])
      this.addSql(`alter table "tenants" drop column "${col}"`);
  }
}
