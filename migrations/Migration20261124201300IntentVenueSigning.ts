/**
 * Self-signed intents on routed venues (issue 17, docs/api.md §3.1): `order_intents.venue_signing` holds
 * what the credential's own signer signs the venue's request with, fixed at compose — the owner's account
 * on the venue, the signer address, the nonce, the mark at compose (decimal strings) — and, once
 * `sign-result` accepted it, the signature the order is sent with. Null for every other intent.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261124201300IntentVenueSigning extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "order_intents" add column "venue_signing" jsonb null check (jsonb_typeof("venue_signing") = 'object')`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "order_intents" drop column "venue_signing"`);
  }
}
