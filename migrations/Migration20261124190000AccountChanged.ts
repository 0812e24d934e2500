/**
 * NOTIFY `account_changed` (payload: the account id) after any insert, update or delete of an account,
 * its balances or its positions, whichever code path writes them: the api's account state cache
 * (db/account-state-cache.ts, issue 15) drops the account at once. PostgreSQL folds identical
 * notifications of one transaction into one, so a fill (position and balance) notifies once.
 */
import { Migration } from '@mikro-orm/migrations';

const TABLES = [
  ['accounts', 'id'],
  ['account_balances', 'account_id'],
  ['positions', 'account_id'],
] as const;

export class Migration20261124190000AccountChanged extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function notify_account_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('account_changed', to_jsonb(coalesce(new, old)) ->> tg_argv[0]);
  return null;
end $$`);
    for (const [table, column] of TABLES)
      this.addSql(
        `create trigger ${table}_changed_notify after insert or update or delete on ${table} for each row execute function notify_account_changed('${column}')`,
      );
  }

  override async down(): Promise<void> {
    for (const [table] of TABLES) this.addSql(`drop trigger if exists ${table}_changed_notify on ${table}`);
    this.addSql(`drop function if exists notify_account_changed()`);
  }
}
