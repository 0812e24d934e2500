/**
 * One round trip for a ledger write that needs no read under the lock (issue 15: a routed intent's record, its
 * `dispatched`): `ledger_lock_account(account, tenant)` locks the account row `for update`, as every ledger transaction
 * does first, and answers the account's last event `seq` (0 when it has none; null when the account is not in that
 * tenant). A plpgsql function runs each of its statements on a fresh snapshot, so the `seq` it reads is taken AFTER
 * the lock, including every event the previous holder of the lock committed; a plain `select max(seq)` beside the lock
 * in one statement would read the statement's snapshot, taken before the lock was waited for, and could number an
 * event again. The caller's statement appends its events after that `seq` (db/events.ts `appendEventsStatement`).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261128230000LedgerLockAccount extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function "ledger_lock_account"(p_account varchar, p_tenant varchar) returns int
language plpgsql volatile as $$
begin
  perform 1 from accounts where id = p_account and tenant_id = p_tenant for update;
  if not found then return null; end if;
  return (select coalesce(max(seq), 0) from account_events where account_id = p_account);
end $$`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function if exists "ledger_lock_account"(varchar, varchar)`);
  }
}
