/**
 * Social sign-in for the branded page (issue 22; docs/api.md §5.1): OpenID Connect per tenant, the email magic
 * link, and identities linked to traders.
 * - `signin_providers`: the tenant operator's sign-in providers (`tenant:config`). `kind` `oidc` (an OpenID
 *   provider: `issuer`, `client_id`, `sealed_client_secret` sealed with the custody key ring like webhook secrets,
 *   null for a public client that authenticates by PKCE alone, `scopes`) or `email` (the magic link, at most one per
 *   tenant). `join_policy`: what a first sign-in of an unknown identity may do — `open` (creates a trader and its
 *   default account), `invite_only` (only an invited email, `signin_invites`), `email_domains` (only a verified email
 *   in `email_domains`, lower-case domains). `slug` names the provider in its routes (`/api/auth/oidc/{slug}/…`).
 * - `trader_identities`: who may sign in as a trader (`owner_id`): an OpenID subject (`issuer` + `subject`), an email
 *   (`issuer` `email`, `subject` the lower-case address) or a wallet (`issuer` `siwe`, `subject` the lower-case
 *   address). One row per `(tenant_id, issuer, subject)`: an identity belongs to one trader of a tenant.
 * - `signin_transactions`: one row per started OpenID login (authorisation code with PKCE): `state` (the row's key,
 *   also bound to the browser by the `service_oidc_state` cookie), `nonce`, the PKCE `code_verifier`, the
 *   `redirect_uri` sent, where to return, and the trader to link to (linking from a signed-in session). 10 minutes,
 *   single use (`used_at`).
 * - `magic_links`: email sign-in links, SHA-256 of the token only, 15 minutes, single use (`used_at`).
 * - `signin_invites`: the emails an `invite_only` tenant lets join (optionally as an existing trader, `owner_id`).
 * - `sessions`: a session now comes from a wallet (`wallet_address`) or from an identity (`identity_id`, its wallet
 *   address null for a social or email sign-in); an identity session ends when its identity is removed.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261127100000SocialSignIn extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "signin_providers" ("id" varchar(255) not null primary key, "tenant_id" varchar(255) not null, "slug" varchar(64) not null, "kind" varchar(16) not null check ("kind" in ('oidc', 'email')), "display_name" varchar(255) not null, "issuer" text null, "client_id" text null, "sealed_client_secret" text null, "scopes" jsonb not null default '["openid","email","profile"]', "join_policy" varchar(16) not null check ("join_policy" in ('open', 'invite_only', 'email_domains')), "email_domains" jsonb not null default '[]', "enabled" boolean not null default true, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), constraint "signin_providers_tenant_slug_unique" unique ("tenant_id", "slug"), constraint "signin_providers_oidc_check" check ("kind" = 'email' or ("issuer" is not null and "client_id" is not null)))`,
    );
    this.addSql(
      `create unique index "signin_providers_one_email_idx" on "signin_providers" ("tenant_id") where "kind" = 'email'`,
    );
    this.addSql(
      `create table "trader_identities" ("id" varchar(255) not null primary key, "tenant_id" varchar(255) not null, "owner_id" varchar(255) not null, "kind" varchar(16) not null check ("kind" in ('oidc', 'email', 'wallet')), "provider_id" varchar(255) null, "issuer" text not null, "subject" text not null, "email" text null, "created_at" timestamptz not null default now(), "last_sign_in_at" timestamptz null, constraint "trader_identities_subject_unique" unique ("tenant_id", "issuer", "subject"))`,
    );
    this.addSql(`create index "trader_identities_owner_idx" on "trader_identities" ("tenant_id", "owner_id")`);
    this.addSql(
      `create table "signin_transactions" ("state" varchar(128) not null primary key, "tenant_id" varchar(255) not null, "provider_id" varchar(255) not null, "nonce" varchar(128) not null, "code_verifier" varchar(128) not null, "redirect_uri" text not null, "return_to" text not null, "link_owner_id" varchar(255) null, "expires_at" timestamptz not null, "used_at" timestamptz null, "created_at" timestamptz not null default now())`,
    );
    this.addSql(`create index "signin_transactions_expires_at_index" on "signin_transactions" ("expires_at")`);
    this.addSql(
      `create table "magic_links" ("token_hash" varchar(64) not null primary key, "tenant_id" varchar(255) not null, "provider_id" varchar(255) not null, "email" text not null, "return_to" text not null, "link_owner_id" varchar(255) null, "expires_at" timestamptz not null, "used_at" timestamptz null, "created_at" timestamptz not null default now())`,
    );
    this.addSql(`create index "magic_links_expires_at_index" on "magic_links" ("expires_at")`);
    this.addSql(
      `create table "signin_invites" ("id" varchar(255) not null primary key, "tenant_id" varchar(255) not null, "email" text not null, "owner_id" varchar(255) null, "accepted_at" timestamptz null, "created_at" timestamptz not null default now())`,
    );
    this.addSql(
      `create unique index "signin_invites_open_idx" on "signin_invites" ("tenant_id", "email") where "accepted_at" is null`,
    );
    this.addSql(
      `alter table "sessions" alter column "wallet_address" drop not null, add column "identity_id" varchar(255) null`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "sessions" where "wallet_address" is null`);
    this.addSql(`alter table "sessions" drop column "identity_id", alter column "wallet_address" set not null`);
    this.addSql(`drop table if exists "signin_invites"`);
    this.addSql(`drop table if exists "magic_links"`);
    this.addSql(`drop table if exists "signin_transactions"`);
    this.addSql(`drop table if exists "trader_identities"`);
    this.addSql(`drop table if exists "signin_providers"`);
  }
}
