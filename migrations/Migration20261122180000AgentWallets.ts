/**
 * Custody of routed venues (issue 4, docs/api.md §1 custody): `agent_wallets`, the per-account,
 * per-venue agent key (encrypted), its owner's authorisation and expiry; `agent_nonces`, the last
 * nonce each agent key used, so nonces are strictly increasing and allocated serially across every
 * worker (db/agent-nonces.ts); `order_intents.venue_client_order_id`, the client order id sent to
 * the venue (the idempotency key of a routed dispatch); `venue_orders`, every order a routed
 * venue reports for an account's owner, including ones placed in the venue's own interface
 * (docs/api.md §4.3 `/order-history`), refreshed from the venue when the history is read.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122180000AgentWallets extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "agent_wallets" ("id" varchar(255) not null primary key, "tenant_id" varchar(255) not null, "account_id" varchar(255) not null, "venue" varchar(255) not null, "owner" varchar(255) not null, "agent_address" varchar(255) not null, "agent_name" varchar(255) not null, "encrypted_key" text not null, "key_version" varchar(255) not null, "encrypted_api_credentials" text null, "status" varchar(32) not null check ("status" in ('pending_authorization', 'active', 'revoked')), "authorization" jsonb not null, "authorization_signature" text null, "expires_at" timestamptz not null, "authorized_at" timestamptz null, "revoked_at" timestamptz null, "created_at" timestamptz not null default now())`,
    );
    this.addSql(`create index "agent_wallets_tenant_id_index" on "agent_wallets" ("tenant_id")`);
    this.addSql(`create index "agent_wallets_account_id_index" on "agent_wallets" ("account_id")`);
    this.addSql(
      `create unique index "agent_wallets_live_unique" on "agent_wallets" ("account_id", "venue") where "status" <> 'revoked'`,
    );
    this.addSql(
      `create table "agent_nonces" ("agent_id" varchar(255) not null primary key, "last_nonce" bigint not null)`,
    );
    this.addSql(`alter table "order_intents" add column "venue_client_order_id" varchar(255) null`);
    this.addSql(
      `create table "venue_orders" ("account_id" varchar(255) not null, "venue" varchar(255) not null, "venue_order_id" varchar(255) not null, "tenant_id" varchar(255) not null, "client_order_id" varchar(255) null, "intent_id" varchar(255) null, "symbol" varchar(255) not null, "side" varchar(8) not null, "type" varchar(32) not null, "qty" numeric not null, "price" numeric null, "status" varchar(16) not null, "filled_qty" numeric not null, "avg_fill_price" numeric null, "source" varchar(16) not null check ("source" in ('platform', 'venue')), "updated_at" timestamptz not null, "synced_at" timestamptz not null default now(), primary key ("account_id", "venue", "venue_order_id"))`,
    );
    this.addSql(`create index "venue_orders_tenant_id_index" on "venue_orders" ("tenant_id")`);
    this.addSql(
      `create index "venue_orders_account_updated_idx" on "venue_orders" ("account_id", "updated_at" desc, "venue_order_id" desc)`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "venue_orders"`);
    this.addSql(`alter table "order_intents" drop column if exists "venue_client_order_id"`);
    this.addSql(`drop table if exists "agent_nonces"`);
    this.addSql(`drop table if exists "agent_wallets"`);
  }
}
