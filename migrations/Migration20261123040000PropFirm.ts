/**
 * The on-chain prop firm (docs/api.md §1 custody rules, §3.5, §4.8, §4.9; issue 6):
 * - `firms`: a firm of a tenant. `owner_address` is the operator's multisig that owns the deployed
 *   `PropInstance` (the platform's deployer never owns it); `stablecoin_address` the ERC-20 the
 *   challenge deposits are paid in; `status` `draft` → `deploying` → `deployed` → `live` ⇄ `paused`;
 *   `instance_address`, `rules_hash`, `deploy_tx_hash`, `deploy_block` once deployed.
 * - `risk_profiles`: per-account order limits (max order and position notional, USD).
 * - `prop_templates`: challenge templates of a firm (price, account size, profit target, max daily
 *   loss, max drawdown as fractions of the account size, minimum trading days, payout split = the
 *   trader's share), optionally with a trading group (leverage caps) and a risk profile.
 * - `prop_accounts`: one challenge of one trader on a template, with its own trading account
 *   (`account_id`, unique). `status` `pending_payment` → `active` → `passed` | `breached`;
 *   `passed` → `funded` on promotion; `suspended` by the operator. `payout_ceiling_usd` is recorded
 *   at a pass (profit × split); `paid_out_usd` what executed payouts have used of it; `attempt` and
 *   `attempt_started_at` count operator resets (trading days count from the attempt's start).
 * - `payouts`: a trader's payout request and its multisig authorisation (`safe_tx_hash`,
 *   `signatures`, `signers`), `requested` → `authorized` → `executed` (or `rejected`).
 * - `prop_ledger`: the firm's money movements in USD, one row per movement (`ref` unique, so a
 *   retried activity records it once): `pay_in` (challenge deposit), `collateral`, `payout`,
 *   `forfeit` (a breached challenge's deposit, kept by the firm).
 * - `accounts.suspended_at`, `accounts.suspension_reason`: account suspension (§5.4 prop:manage).
 * - trigger `credentials_revoked_notify`: NOTIFY `credential_revoked` (payload: the id) when a
 *   credential is revoked, so every api process closes that credential's sockets (§5.2).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261123040000PropFirm extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "firms" ("id" varchar(255) not null primary key, "tenant_id" varchar(255) not null, "name" varchar(255) not null, "owner_address" varchar(42) not null, "chain_id" int not null, "stablecoin_address" varchar(42) not null, "status" varchar(16) not null default 'draft' check ("status" in ('draft', 'deploying', 'deployed', 'live', 'paused')), "instance_address" varchar(42) null, "rules_hash" varchar(66) null, "deploy_tx_hash" varchar(66) null, "deploy_block" bigint null, "deployed_at" timestamptz null, "live_at" timestamptz null, "paused_at" timestamptz null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now())`,
    );
    this.addSql(`create index "firms_tenant_id_index" on "firms" ("tenant_id")`);
    this.addSql(
      `create table "risk_profiles" ("id" varchar(255) not null primary key, "tenant_id" varchar(255) not null, "name" varchar(255) not null, "max_order_notional_usd" numeric null, "max_position_notional_usd" numeric null, "created_at" timestamptz not null default now())`,
    );
    this.addSql(`create index "risk_profiles_tenant_id_index" on "risk_profiles" ("tenant_id")`);
    this.addSql(
      `create table "prop_templates" ("id" varchar(255) not null primary key, "tenant_id" varchar(255) not null, "firm_id" varchar(255) not null references "firms" ("id"), "name" varchar(255) not null, "price_usd" numeric not null, "account_size_usd" numeric not null, "profit_target_pct" numeric not null, "max_daily_loss_pct" numeric not null, "max_drawdown_pct" numeric not null, "min_trading_days" int not null, "payout_split_pct" numeric not null, "venue" varchar(32) not null default 'paper', "trading_group_id" varchar(255) null, "risk_profile_id" varchar(255) null, "archived" boolean not null default false, "created_at" timestamptz not null default now())`,
    );
    this.addSql(`create index "prop_templates_tenant_id_index" on "prop_templates" ("tenant_id")`);
    this.addSql(
      `create table "prop_accounts" ("id" varchar(255) not null primary key, "tenant_id" varchar(255) not null, "firm_id" varchar(255) not null references "firms" ("id"), "template_id" varchar(255) not null references "prop_templates" ("id"), "account_id" varchar(255) not null unique, "owner_id" varchar(255) not null, "status" varchar(16) not null check ("status" in ('pending_payment', 'active', 'passed', 'breached', 'funded', 'suspended')), "payer_address" varchar(42) null, "deposit_tx_hash" varchar(66) null, "starting_balance_usd" numeric not null, "peak_equity_usd" numeric not null, "day_start_equity_usd" numeric not null, "day" date null, "trading_days" int not null default 0, "breach_reason" text null, "payout_ceiling_usd" numeric null, "paid_out_usd" numeric not null default 0, "attempt" int not null default 1, "attempt_started_at" timestamptz not null default now(), "passed_at" timestamptz null, "breached_at" timestamptz null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now())`,
    );
    this.addSql(`create index "prop_accounts_tenant_id_index" on "prop_accounts" ("tenant_id")`);
    this.addSql(`create index "prop_accounts_firm_id_index" on "prop_accounts" ("firm_id")`);
    this.addSql(
      `create table "payouts" ("id" varchar(255) not null primary key, "tenant_id" varchar(255) not null, "firm_id" varchar(255) not null references "firms" ("id"), "prop_account_id" varchar(255) not null references "prop_accounts" ("id"), "amount_usd" numeric not null check ("amount_usd" > 0), "to_address" varchar(42) not null, "status" varchar(16) not null check ("status" in ('requested', 'authorized', 'executed', 'rejected')), "safe_tx_hash" varchar(66) null, "signatures" text null, "signers" jsonb null, "reject_reason" text null, "authorized_at" timestamptz null, "executed_tx_hash" varchar(66) null, "executed_at" timestamptz null, "created_at" timestamptz not null default now())`,
    );
    this.addSql(`create index "payouts_tenant_id_index" on "payouts" ("tenant_id")`);
    this.addSql(
      `create table "prop_ledger" ("id" varchar(255) not null primary key, "tenant_id" varchar(255) not null, "firm_id" varchar(255) not null references "firms" ("id"), "prop_account_id" varchar(255) null, "kind" varchar(16) not null check ("kind" in ('pay_in', 'collateral', 'payout', 'forfeit')), "amount_usd" numeric not null check ("amount_usd" >= 0), "tx_hash" varchar(66) null, "ref" varchar(255) not null unique, "created_at" timestamptz not null default now())`,
    );
    this.addSql(`create index "prop_ledger_firm_id_index" on "prop_ledger" ("firm_id", "kind")`);
    this.addSql(
      `alter table "accounts" add column "suspended_at" timestamptz null, add column "suspension_reason" text null`,
    );
    this.addSql(
      `create or replace function credentials_revoked_notify() returns trigger language plpgsql as $$ begin perform pg_notify('credential_revoked', new.id); return new; end $$`,
    );
    this.addSql(
      `create trigger credentials_revoked_notify after update of revoked_at on credentials for each row when (new.revoked_at is not null and old.revoked_at is distinct from new.revoked_at) execute function credentials_revoked_notify()`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists credentials_revoked_notify on credentials`);
    this.addSql(`drop function if exists credentials_revoked_notify()`);
    this.addSql(`alter table "accounts" drop column "suspended_at", drop column "suspension_reason"`);
    for (const t of ['prop_ledger', 'payouts', 'prop_accounts', 'prop_templates', 'risk_profiles', 'firms'])
      this.addSql(`drop table if exists "${t}"`);
  }
}
