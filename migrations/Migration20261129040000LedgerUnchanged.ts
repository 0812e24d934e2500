/**
 * A ledger write that read its rows without the account lock (issue 15: a routed order's fills, ledger.ts
 * `withIntentIfUnchanged`) checks, after taking the lock and before writing, that those rows are still the versions it
 * read: `ledger_expect_unchanged(ok)` raises SQLSTATE `LU001` when `ok` is not true, which aborts the transaction, so
 * the writes sent behind it in the same round trip do not happen and its commit is a rollback; the caller then runs the
 * write again under the lock. A function rather than an expression, so that the error is raised only when PostgreSQL
 * evaluates it, never at planning.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261129040000LedgerUnchanged extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function "ledger_expect_unchanged"(ok boolean) returns boolean
language plpgsql volatile as $$
begin
  if ok is not true then
    raise exception 'ledger rows changed since they were read' using errcode = 'LU001';
  end if;
  return true;
end $$`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function if exists "ledger_expect_unchanged"(boolean)`);
  }
}
