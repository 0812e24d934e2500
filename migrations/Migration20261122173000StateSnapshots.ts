/**
 * Account state snapshots (docs/api.md §4.3 `GET /accounts/{id}/state/history`: the equity and margin time
 * series). One row per account and venue each time its state changes — the opening deposit, an
 * execution that filled, a funding payment — plus one sample per funding hour for accounts holding
 * positions (equity moves with the marks between changes). Amounts are USD `numeric`.
 *
 * `hour` is set on rows written by the hourly funding run; the partial unique index keeps one
 * periodic sample (`reason = 'hourly'`) per account, venue and hour however often the hour reruns.
 *
 * Accounts that exist when this runs get one `backfill` row each (per balance row), valued at the
 * marks of the moment: the series of an existing account starts at the migration.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122173000StateSnapshots extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "account_state_snapshots" ("id" bigserial primary key, "tenant_id" varchar(255) not null, "account_id" varchar(255) not null, "venue" varchar(255) not null, "ts" timestamptz not null, "reason" varchar(16) not null check ("reason" in ('deposit', 'fill', 'funding', 'hourly', 'backfill')), "hour" timestamptz null, "equity_usd" numeric not null, "balance_usd" numeric not null, "unrealized_pnl_usd" numeric not null, "margin_used_usd" numeric not null, "margin_available_usd" numeric not null, "open_positions" int not null)`,
    );
    this.addSql(`create index "account_state_snapshots_tenant_id_index" on "account_state_snapshots" ("tenant_id")`);
    this.addSql(
      `create index "account_state_snapshots_account_ts_idx" on "account_state_snapshots" ("account_id", "ts" desc, "id" desc)`,
    );
    this.addSql(
      `create unique index "account_state_snapshots_hourly_unique" on "account_state_snapshots" ("account_id", "venue", "hour") where "reason" = 'hourly'`,
    );
    // Backfill: the state of every existing balance row now (unrealised and margin at the current
    // mark, or at the average entry when the symbol has no mark), as domain/paper/account.ts values it.
    this
      .addSql(`insert into "account_state_snapshots" ("tenant_id", "account_id", "venue", "ts", "reason", "equity_usd", "balance_usd", "unrealized_pnl_usd", "margin_used_usd", "margin_available_usd", "open_positions")
      select b."tenant_id", b."account_id", b."venue", now(), 'backfill',
             b."balance_usd" + coalesce(p."upnl", 0), b."balance_usd", coalesce(p."upnl", 0), coalesce(p."margin", 0),
             greatest(0, b."balance_usd" + coalesce(p."upnl", 0) - coalesce(p."margin", 0)), coalesce(p."n", 0)
      from "account_balances" b
      left join (
        select pos."account_id", pos."venue",
               sum((coalesce(m."mark", pos."avg_entry_price") - pos."avg_entry_price") * pos."qty") as "upnl",
               sum(abs(pos."qty") * coalesce(m."mark", pos."avg_entry_price") / pos."leverage") as "margin",
               count(*)::int as "n"
        from "positions" pos left join "marks" m on m."venue" = pos."venue" and m."symbol" = pos."symbol"
        where pos."qty" <> 0
        group by pos."account_id", pos."venue"
      ) p on p."account_id" = b."account_id" and p."venue" = b."venue"`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "account_state_snapshots"`);
  }
}
