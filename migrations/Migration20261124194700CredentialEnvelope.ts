/**
 * Credential management over the API (issue 17, docs/api.md §2.1, §4.8, §5.2):
 * - `credentials.envelope`: a trader's risk envelope as JSON (`maxOrderNotionalUsd`,
 *   `maxPositionNotionalUsd`, `dailyLossLimitUsd` USD decimal strings, `maxLeverage` a number; absent = no
 *   limit), checked at compose (domain/auth/envelope.ts);
 * - `credentials.allowed_venues`, `credentials.allowed_symbols`: JSON arrays of venue slugs and
 *   venue-suffixed symbols compose accepts; null = every one;
 * - `credentials.secret_version`, `credentials.secret_rotated_at`: bumped and stamped by each rotation;
 *   a bearer carries the version it was minted under and is refused once it differs.
 * Every change is an update of the row, so the `credential_changed` NOTIFY of migration AuthCache drops it
 * from each api process's authentication cache, and a revocation still fires `credential_revoked`.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261124194700CredentialEnvelope extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "credentials" add column "envelope" jsonb not null default '{}' check (jsonb_typeof("envelope") = 'object'), add column "allowed_venues" jsonb null check (jsonb_typeof("allowed_venues") = 'array'), add column "allowed_symbols" jsonb null check (jsonb_typeof("allowed_symbols") = 'array'), add column "secret_version" int not null default 1 check ("secret_version" >= 1), add column "secret_rotated_at" timestamptz null`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table "credentials" drop column "envelope", drop column "allowed_venues", drop column "allowed_symbols", drop column "secret_version", drop column "secret_rotated_at"`,
    );
  }
}
