/**
 * Browser sessions and smart order routing (docs/api.md §5.1, §4.4 route-intents, §4.5, §2.11):
 * - `siwe_nonces`: single-use Sign-In-With-Ethereum nonces, per tenant, 5 minutes.
 * - `sessions`: `service_session` cookie sessions. The cookie holds an opaque random token; only its
 *   SHA-256 is stored (`token_hash`). A session represents one trader (`owner_id`) and one account,
 *   linked through the wallet address that signed in; it expires after 24 h or at logout (`revoked_at`).
 * - `sor_decisions`: one row per routed order: the candidates with each estimate or skip reason,
 *   the selected venue, its estimated cost and the next-best eligible venue's (savings).
 * The account's routing switch is `accounts.settings.smartRouting` (json, no column).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122190000SessionsAndRouting extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "siwe_nonces" ("nonce" varchar(128) not null primary key, "tenant_id" varchar(255) not null, "expires_at" timestamptz not null, "consumed_at" timestamptz null, "created_at" timestamptz not null default now())`,
    );
    this.addSql(`create index "siwe_nonces_expires_at_index" on "siwe_nonces" ("expires_at")`);
    this.addSql(
      `create table "sessions" ("id" varchar(255) not null primary key, "token_hash" varchar(64) not null unique, "tenant_id" varchar(255) not null, "wallet_address" varchar(42) not null, "owner_id" varchar(255) not null, "account_id" varchar(255) not null, "expires_at" timestamptz not null, "revoked_at" timestamptz null, "created_at" timestamptz not null default now())`,
    );
    this.addSql(`create index "sessions_tenant_id_index" on "sessions" ("tenant_id")`);
    this.addSql(
      `create table "sor_decisions" ("id" varchar(255) not null primary key, "tenant_id" varchar(255) not null, "account_id" varchar(255) not null, "intent_id" varchar(255) not null unique, "asset" varchar(128) not null, "side" varchar(8) not null check ("side" in ('buy', 'sell')), "qty" numeric not null, "selected_venue" varchar(32) not null, "selected_symbol" varchar(128) not null, "candidates" jsonb not null, "eligible_count" int not null, "estimated_cost_usd" numeric not null, "estimated_cost_bps" numeric not null, "selected_all_in_price" numeric not null, "mark" numeric not null, "next_best_venue" varchar(32) null, "next_best_cost_usd" numeric null, "next_best_cost_bps" numeric null, "next_best_all_in_price" numeric null, "savings_usd" numeric null, "created_at" timestamptz not null)`,
    );
    this.addSql(`create index "sor_decisions_tenant_id_index" on "sor_decisions" ("tenant_id")`);
    this.addSql(
      `create index "sor_decisions_account_created_idx" on "sor_decisions" ("account_id", "created_at" desc, "id" desc)`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "sor_decisions"`);
    this.addSql(`drop table if exists "sessions"`);
    this.addSql(`drop table if exists "siwe_nonces"`);
  }
}
