/**
 * A registered origin belongs to one tenant, and a tenant's account policy (issue 16, items 8 and 9;
 * docs/api.md §2.4, §4.2, §5.6):
 * - `tenant_origin_hosts`: one row per host (`host[:port]` of a registered origin, lower case) and the
 *   tenant that registered it; the primary key makes a host unique across tenants, so `Origin`/`Host`
 *   resolution can never match two tenants (`http://h` and `https://h` are the same host: a `Host`
 *   header is tried as both). `tenants.origins` stays the list the API reads and writes; trigger
 *   `tenant_origin_hosts_sync` rewrites the tenant's rows on every insert or update of it, in the
 *   same transaction, so a write that claims another tenant's host fails with a unique violation
 *   (the API answers `409 origin_taken`), whichever writer it comes from and however concurrent.
 *   Existing data: where tenants already share a host, the platform tenant keeps it, else the
 *   oldest tenant (then the smallest id); the origins of that host are removed from the others.
 * - `tenants.accounts` (jsonb, `{}` = defaults of domain/tenant/config.ts `accountsSchema`): the
 *   trading group and deposit policy of accounts its traders open themselves.
 */
import { Migration } from '@mikro-orm/migrations';

/** `host[:port]` of an origin (`scheme://host[:port][/…]`), lower case. */
const HOST_FN = `create or replace function tenant_origin_host(origin text) returns text language sql immutable as $$ select lower(split_part(regexp_replace(origin, '^[a-zA-Z][a-zA-Z0-9+.-]*://', ''), '/', 1)) $$`;

export class Migration20261124120000UniqueOrigins extends Migration {
  override async up(): Promise<void> {
    this.addSql(HOST_FN);
    this.addSql(
      `create table "tenant_origin_hosts" ("host" varchar(255) not null primary key, "tenant_id" varchar(255) not null references "tenants" ("id") on delete cascade)`,
    );
    this.addSql(`create index "tenant_origin_hosts_tenant_id_index" on "tenant_origin_hosts" ("tenant_id")`);
    // Where tenants already share a host, it stays with the platform tenant, else the oldest, else the smallest id.
    this.addSql(
      `with claims as (
         select tenant_origin_host(o.origin) as host, t.id as tenant_id, t.is_platform, t.created_at
           from tenants t cross join lateral jsonb_array_elements_text(t.origins) as o(origin)),
       winners as (
         select distinct on (host) host, tenant_id from claims order by host, is_platform desc, created_at, tenant_id)
       update tenants t set origins = coalesce((
         select jsonb_agg(o.origin order by o.n) from jsonb_array_elements_text(t.origins) with ordinality as o(origin, n)
          where not exists (select 1 from winners w where w.host = tenant_origin_host(o.origin) and w.tenant_id <> t.id)
       ), '[]'::jsonb)
       where t.id in (select c.tenant_id from claims c join winners w on w.host = c.host and w.tenant_id <> c.tenant_id)`,
    );
    this.addSql(
      `insert into "tenant_origin_hosts" ("host", "tenant_id")
         select distinct tenant_origin_host(o.origin), t.id
           from tenants t cross join lateral jsonb_array_elements_text(t.origins) as o(origin)
          where tenant_origin_host(o.origin) <> ''`,
    );
    this.addSql(
      `create or replace function tenant_origin_hosts_sync() returns trigger language plpgsql as $$
       begin
         delete from tenant_origin_hosts where tenant_id = new.id;
         insert into tenant_origin_hosts (host, tenant_id)
           select distinct tenant_origin_host(o), new.id from jsonb_array_elements_text(new.origins) as o
            where tenant_origin_host(o) <> '';
         return new;
       end $$`,
    );
    this.addSql(
      `create trigger tenant_origin_hosts_sync after insert or update of origins on tenants for each row execute function tenant_origin_hosts_sync()`,
    );
    this.addSql(`alter table "tenants" add column "accounts" jsonb not null default '{}'`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "tenants" drop column "accounts"`);
    this.addSql(`drop trigger if exists tenant_origin_hosts_sync on tenants`);
    this.addSql(`drop function if exists tenant_origin_hosts_sync()`);
    this.addSql(`drop table if exists "tenant_origin_hosts"`);
    this.addSql(`drop function if exists tenant_origin_host(text)`);
  }
}
