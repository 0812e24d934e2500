/**
 * NOTIFY `account_events` carries the event row itself as JSON (issue 15) when it fits PostgreSQL's
 * 8000-byte payload limit (with room to spare), else its id as before: the api's event hub
 * (api/ws/hub.ts) then sends `/ws/risk` frames without re-reading each row (five per paper order).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261124180000EventNotice extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function "notify_account_event"() returns trigger language plpgsql as $$
declare
  payload text := json_build_object('id', new.id::text, 'tenant_id', new.tenant_id, 'account_id', new.account_id,
    'seq', new.seq, 'topic', new.topic, 'frame_type', new.frame_type, 'kind', new.kind,
    'created_at', new.created_at, 'data', new.data)::text;
begin
  perform pg_notify('account_events', case when octet_length(payload) < 7900 then payload else new.id::text end);
  return new;
end $$`);
  }

  override async down(): Promise<void> {
    this.addSql(`create or replace function "notify_account_event"() returns trigger language plpgsql as $$
begin
  perform pg_notify('account_events', new.id::text);
  return new;
end $$`);
  }
}
