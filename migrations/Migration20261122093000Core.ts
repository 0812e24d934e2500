/**
 * The core schema of issue 2: tenants, credentials, tokens, idempotency, accounts, intents,
 * fills, positions, trades, the account event log (NOTIFY on insert) and marks (NOTIFY on change).
 * Generated from db/entities.ts by MikroORM's schema generator, then reviewed; the indexes and
 * triggers at the end are hand-written.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122093000Core extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "accounts" ("id" varchar(255) not null, "tenant_id" varchar(255) not null, "account_number" varchar(255) not null, "owner_id" varchar(255) not null, "name" varchar(255) not null, "execution_mode" varchar(255) not null default 'internalised', "base_currency" varchar(255) not null default 'USD', "trading_group_id" varchar(255) null, "settings" jsonb not null, "created_at" timestamptz not null, primary key ("id"))`,
    );
    this.addSql(`create index "accounts_tenant_id_index" on "accounts" ("tenant_id")`);
    this.addSql(`create index "accounts_owner_id_index" on "accounts" ("owner_id")`);
    this.addSql(`alter table "accounts" add constraint "accounts_account_number_unique" unique ("account_number")`);
    this.addSql(
      `create table "account_balances" ("account_id" varchar(255) not null, "venue" varchar(255) not null, "tenant_id" varchar(255) not null, "balance_usd" numeric not null, primary key ("account_id", "venue"))`,
    );
    this.addSql(`create index "account_balances_tenant_id_index" on "account_balances" ("tenant_id")`);
    this.addSql(
      `create table "account_events" ("id" bigserial primary key, "tenant_id" varchar(255) not null, "account_id" varchar(255) not null, "seq" int not null, "kind" varchar(255) not null, "topic" varchar(255) not null, "frame_type" varchar(255) not null, "venue" varchar(255) null, "data" jsonb not null, "created_at" timestamptz not null)`,
    );
    this.addSql(`create index "account_events_tenant_id_index" on "account_events" ("tenant_id")`);
    this.addSql(
      `alter table "account_events" add constraint "account_events_account_id_seq_unique" unique ("account_id", "seq")`,
    );
    this.addSql(
      `create table "credentials" ("id" varchar(255) not null, "tenant_id" varchar(255) not null, "api_key" varchar(255) not null, "owner_id" varchar(255) not null, "secret_hash" varchar(255) not null, "audience" varchar(255) not null, "tier" varchar(255) null, "scopes" jsonb not null, "account_id" varchar(255) null, "signer_address" varchar(255) null, "label" varchar(255) not null, "revoked_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"))`,
    );
    this.addSql(`create index "credentials_tenant_id_index" on "credentials" ("tenant_id")`);
    this.addSql(`create index "credentials_owner_id_index" on "credentials" ("owner_id")`);
    this.addSql(`alter table "credentials" add constraint "credentials_api_key_unique" unique ("api_key")`);
    this.addSql(
      `create table "fills" ("id" varchar(255) not null, "tenant_id" varchar(255) not null, "account_id" varchar(255) not null, "intent_id" varchar(255) not null, "venue" varchar(255) not null, "symbol" varchar(255) not null, "side" varchar(255) not null, "qty" numeric not null, "price" numeric not null, "fee_usd" numeric not null, "liquidity" varchar(255) not null, "venue_order_id" varchar(255) not null, "venue_trade_id" varchar(255) not null, "realized_pnl_usd" numeric not null, "executed_at" timestamptz not null, primary key ("id"))`,
    );
    this.addSql(`create index "fills_tenant_id_index" on "fills" ("tenant_id")`);
    this.addSql(`create index "fills_account_id_index" on "fills" ("account_id")`);
    this.addSql(`create index "fills_intent_id_index" on "fills" ("intent_id")`);
    this.addSql(
      `create table "handshake_tokens" ("token_hash" varchar(255) not null, "tenant_id" varchar(255) not null, "credential_id" varchar(255) not null, "account_id" varchar(255) null, "channel" varchar(255) not null, "expires_at" timestamptz not null, "consumed_at" timestamptz null, "created_at" timestamptz not null, primary key ("token_hash"))`,
    );
    this.addSql(`create index "handshake_tokens_tenant_id_index" on "handshake_tokens" ("tenant_id")`);
    this.addSql(`create index "handshake_tokens_credential_id_index" on "handshake_tokens" ("credential_id")`);
    this.addSql(
      `create table "idempotency_records" ("credential_id" varchar(255) not null, "key" varchar(255) not null, "request_hash" varchar(255) not null, "status" varchar(255) not null, "response_status" int null, "response_body" jsonb null, "expires_at" timestamptz not null, "created_at" timestamptz not null, primary key ("credential_id", "key"))`,
    );
    this.addSql(
      `create table "marks" ("venue" varchar(255) not null, "symbol" varchar(255) not null, "mark" numeric not null, "bid" numeric not null, "ask" numeric not null, "book" jsonb not null, "ts" timestamptz not null, primary key ("venue", "symbol"))`,
    );
    this.addSql(
      `create table "order_intents" ("id" varchar(255) not null, "tenant_id" varchar(255) not null, "account_id" varchar(255) not null, "credential_id" varchar(255) not null, "client_order_id" varchar(255) null, "venue" varchar(255) not null, "symbol" varchar(255) not null, "side" varchar(255) not null, "type" varchar(255) not null, "qty" numeric not null, "price" numeric null, "trigger_price" numeric null, "stop_limit_price" numeric null, "reduce_only" boolean not null, "time_in_force" varchar(255) not null, "leverage" numeric not null, "state" varchar(255) not null, "order_status" varchar(255) null, "venue_order_id" varchar(255) null, "filled_qty" numeric not null, "avg_fill_price" numeric null, "last_event" varchar(255) not null, "reject_reason" varchar(255) null, "triggered" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"))`,
    );
    this.addSql(`create index "order_intents_tenant_id_index" on "order_intents" ("tenant_id")`);
    this.addSql(`create index "order_intents_account_id_index" on "order_intents" ("account_id")`);
    this.addSql(`create index "order_intents_credential_id_index" on "order_intents" ("credential_id")`);
    this.addSql(
      `create table "positions" ("account_id" varchar(255) not null, "venue" varchar(255) not null, "symbol" varchar(255) not null, "tenant_id" varchar(255) not null, "qty" numeric not null, "avg_entry_price" numeric not null, "realized_pnl_usd" numeric not null, "leverage" numeric not null, "opened_at" timestamptz null, "updated_at" timestamptz not null, primary key ("account_id", "venue", "symbol"))`,
    );
    this.addSql(`create index "positions_tenant_id_index" on "positions" ("tenant_id")`);
    this.addSql(
      `create table "revoked_tokens" ("jti" varchar(255) not null, "expires_at" timestamptz not null, primary key ("jti"))`,
    );
    this.addSql(
      `create table "tenants" ("id" varchar(255) not null, "slug" varchar(255) not null, "display_name" varchar(255) not null, "origins" jsonb not null, "suspended" boolean not null default false, "is_platform" boolean not null default false, "fee_schedule" jsonb not null, "created_at" timestamptz not null, primary key ("id"))`,
    );
    this.addSql(`alter table "tenants" add constraint "tenants_slug_unique" unique ("slug")`);
    this.addSql(
      `create table "trades" ("id" varchar(255) not null, "tenant_id" varchar(255) not null, "account_id" varchar(255) not null, "venue" varchar(255) not null, "symbol" varchar(255) not null, "side" varchar(255) not null, "qty" numeric not null, "entry_price" numeric not null, "exit_price" numeric not null, "realized_pnl_usd" numeric not null, "fees_usd" numeric not null, "opened_at" timestamptz not null, "closed_at" timestamptz not null, "exit_fill_id" varchar(255) not null, primary key ("id"))`,
    );
    this.addSql(`create index "trades_tenant_id_index" on "trades" ("tenant_id")`);
    this.addSql(`create index "trades_account_id_index" on "trades" ("account_id")`);
    this.addSql(`alter table "trades" add constraint "trades_exit_fill_id_unique" unique ("exit_fill_id")`);
    this.addSql(
      `create table "trading_groups" ("id" varchar(255) not null, "tenant_id" varchar(255) not null, "name" varchar(255) not null, "leverage_caps" jsonb not null, "created_at" timestamptz not null, primary key ("id"))`,
    );
    this.addSql(`create index "trading_groups_tenant_id_index" on "trading_groups" ("tenant_id")`);
    this.addSql(
      `create index "order_intents_account_created_index" on "order_intents" ("account_id", "created_at" desc, "id" desc)`,
    );
    this.addSql(
      `create index "order_intents_credential_created_index" on "order_intents" ("credential_id", "created_at" desc, "id" desc)`,
    );
    this.addSql(
      `create index "order_intents_working_index" on "order_intents" ("venue", "symbol") where "order_status" = 'open'`,
    );
    this.addSql(`create index "fills_account_executed_index" on "fills" ("account_id", "executed_at" desc, "id" desc)`);
    this.addSql(`create index "trades_account_closed_index" on "trades" ("account_id", "closed_at" desc, "id" desc)`);
    this.addSql(
      `create index "handshake_tokens_rate_index" on "handshake_tokens" ("credential_id", "channel", "created_at")`,
    );
    this.addSql(`create function "notify_account_event"() returns trigger language plpgsql as $$
begin
  perform pg_notify('account_events', new.id::text);
  return new;
end $$`);
    this.addSql(
      `create trigger "account_events_notify" after insert on "account_events" for each row execute function "notify_account_event"()`,
    );
    this.addSql(`create function "notify_mark"() returns trigger language plpgsql as $$
begin
  perform pg_notify('marks', new.venue || ' ' || new.symbol);
  return new;
end $$`);
    this.addSql(
      `create trigger "marks_notify" after insert or update on "marks" for each row execute function "notify_mark"()`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop function if exists "notify_mark"() cascade`);
    this.addSql(`drop function if exists "notify_account_event"() cascade`);
    this.addSql(`drop table if exists "trading_groups" cascade`);
    this.addSql(`drop table if exists "trades" cascade`);
    this.addSql(`drop table if exists "tenants" cascade`);
    this.addSql(`drop table if exists "revoked_tokens" cascade`);
    this.addSql(`drop table if exists "positions" cascade`);
    this.addSql(`drop table if exists "order_intents" cascade`);
    this.addSql(`drop table if exists "marks" cascade`);
    this.addSql(`drop table if exists "idempotency_records" cascade`);
    this.addSql(`drop table if exists "handshake_tokens" cascade`);
    this.addSql(`drop table if exists "fills" cascade`);
    this.addSql(`drop table if exists "credentials" cascade`);
    this.addSql(`drop table if exists "account_events" cascade`);
    this.addSql(`drop table if exists "account_balances" cascade`);
    this.addSql(`drop table if exists "accounts" cascade`);
  }
}
