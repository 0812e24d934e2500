/**
 * Request rate limits (docs/api.md §8 "Rate limits", issue 16):
 * - `credentials.rate_limit_per_second`, `credentials.rate_limit_burst`: a credential's own limits,
 *   over the deployment's `RATE_LIMIT_PER_SECOND` / `RATE_LIMIT_BURST`; null = the deployment's.
 * - `rate_limits`: the counters of api/middleware/rate-limit.ts (rate-limiter-flexible's
 *   `RateLimiterPostgres` layout: `key`, `points` used in the window, `expire` = the window's end in
 *   epoch ms), shared by every api process so a limit holds across them. Rows past `expire` are
 *   reused by the next request and swept hourly.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261124130000RateLimits extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "credentials" add column "rate_limit_per_second" int null check ("rate_limit_per_second" > 0), add column "rate_limit_burst" int null check ("rate_limit_burst" >= 0)`,
    );
    this.addSql(
      `create table "rate_limits" ("key" varchar(255) not null primary key, "points" int not null default 0, "expire" bigint null)`,
    );
    this.addSql(`create index "rate_limits_expire_index" on "rate_limits" ("expire")`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "rate_limits"`);
    this.addSql(`alter table "credentials" drop column "rate_limit_per_second", drop column "rate_limit_burst"`);
  }
}
