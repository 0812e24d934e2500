/**
 * NOTIFY channels of the api processes' authentication cache (api/auth/auth-cache.ts, issue 15):
 * - `credential_changed` (payload: the credential id) after any update or delete of a credential;
 * - `tenant_changed` (no payload) after any insert, update or delete of tenants, once per statement;
 * - `token_revoked` (payload: `<jti> <expiry in epoch ms>`) after a revoked token is written.
 * The `credential_revoked` channel of migration PropFirm (closing `/ws/risk` sockets) stays as it was.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261124150000AuthCache extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create function notify_credential_changed() returns trigger language plpgsql as $$ begin perform pg_notify('credential_changed', coalesce(new.id, old.id)); return null; end $$`,
    );
    this.addSql(
      `create trigger credentials_changed_notify after update or delete on credentials for each row execute function notify_credential_changed()`,
    );
    this.addSql(
      `create function notify_tenant_changed() returns trigger language plpgsql as $$ begin perform pg_notify('tenant_changed', ''); return null; end $$`,
    );
    this.addSql(
      `create trigger tenants_changed_notify after insert or update or delete on tenants for each statement execute function notify_tenant_changed()`,
    );
    this.addSql(
      `create function notify_token_revoked() returns trigger language plpgsql as $$ begin perform pg_notify('token_revoked', new.jti || ' ' || floor(extract(epoch from new.expires_at) * 1000)::bigint); return null; end $$`,
    );
    this.addSql(
      `create trigger revoked_tokens_notify after insert or update on revoked_tokens for each row execute function notify_token_revoked()`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists revoked_tokens_notify on revoked_tokens`);
    this.addSql(`drop function if exists notify_token_revoked()`);
    this.addSql(`drop trigger if exists tenants_changed_notify on tenants`);
    this.addSql(`drop function if exists notify_tenant_changed()`);
    this.addSql(`drop trigger if exists credentials_changed_notify on credentials`);
    this.addSql(`drop function if exists notify_credential_changed()`);
  }
}
