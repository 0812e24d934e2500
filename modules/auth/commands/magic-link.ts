/**
 * Email magic link, the fallback sign-in of the branded page (docs/api.md §5.1 "Social sign-in"; issue 22): the
 * tenant's `email` provider (modules/auth/commands/signin-providers.ts) mails a link that signs the address in once,
 * within {@link MAGIC_LINK_TTL_MS}. The mail goes through the outbox (db/mail.ts), written in the transaction that
 * records the link and flushed at once through the configured transport (infra/mail.ts: SMTP, or the dev mailbox
 * under `MAIL_DIR`); the workers retry what fails. Only the token's SHA-256 is stored (`magic_links.token_hash`); the
 * token is in the mail only, never in the log. The address is the identity (`issuer` `email`): the join policy of the
 * provider decides whether an unknown one may join (modules/auth/commands/identities.ts).
 *
 * Asking for a link answers the same whether or not the address may sign in (no enumeration); the policy is applied
 * when the link is used.
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from '../../../domain/errors.js';
import { tokenHash } from '../../../domain/auth/secrets.js';
import { SigninProvider } from '../../../db/entities.js';
import { deliverOutbox, logDelivery, queueMail } from '../../../db/mail.js';
import { platformEm, scoped } from '../../../db/orm.js';
import { mailTransport } from '../../../infra/mail.js';
import type { ApiDeps } from '../../../api/context.js';
import { EMAIL_ISSUER, signInIdentity } from './identities.js';
import type { FinishedLogin } from './oidc.js';

/** A magic link's lifetime (ms): 15 minutes. */
const MAGIC_LINK_TTL_MS = 15 * 60 * 1000;

/** The magic-link flow of one api process, with its mail transport. */
export function magicLinks(deps: ApiDeps) {
  const transport = mailTransport(deps.config.mail);

  /** The tenant's enabled email provider. @throws ApiError `404 signin_provider_not_found`. */
  const emailProvider = async (tenantId: string) => {
    const p = await scoped(deps.orm, tenantId).findOne(SigninProvider, { kind: 'email', enabled: true });
    if (!p) throw new ApiError('signin_provider_not_found', 'this tenant offers no email sign-in');
    return p;
  };

  return {
    /**
     * Mails a single-use sign-in link (15 minutes) to `email` (lower-cased), `<origin>/api/auth/email/verify?token=…`
     * (`origin`: oidc.ts `pageOrigin`); with `linkOwnerId`, using it links the address to that signed-in trader
     * instead. Answers when the link expires.
     * @throws ApiError `404 signin_provider_not_found` (the tenant has no enabled email provider).
     */
    async start(o: { tenantId: string; email: string; returnTo: string; linkOwnerId: string | null; origin: string }) {
      const p = await emailProvider(o.tenantId);
      const email = o.email.toLowerCase();
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(Date.now() + MAGIC_LINK_TTL_MS);
      await platformEm(deps.orm).transactional(async (tx) => {
        await tx
          .getConnection()
          .execute(
            `insert into magic_links (token_hash, tenant_id, provider_id, email, return_to, link_owner_id, expires_at) values (?, ?, ?, ?, ?, ?, ?)`,
            [tokenHash(token), o.tenantId, p.id, email, o.returnTo, o.linkOwnerId, expiresAt],
            'run',
            tx.getTransactionContext(),
          );
        const link = `${o.origin}/api/auth/email/verify?token=${token}`;
        const action = o.linkOwnerId ? 'link this address to your account' : `sign in to ${p.displayName}`;
        await queueMail(tx, {
          to: email,
          subject: o.linkOwnerId ? 'Link your email' : `Sign in to ${p.displayName}`,
          body: `Open this link to ${action}:\n${link}\nIt works once, until ${expiresAt.toISOString()}. If you did not ask for it, ignore this mail.`,
        });
      });
      await platformEm(deps.orm)
        .getConnection()
        .execute(`delete from magic_links where expires_at < now() - interval '1 day'`);
      await deliverOutbox(deps.orm, transport).then(
        (report) => logDelivery(deps.logger, transport.kind, report),
        (err) => deps.logger.error({ err }, 'mail outbox delivery failed; the mail stays queued'),
      );
      return { expiresAt };
    },

    /**
     * The page path the magic link `token` of the tenant returns to — used or expired too (a link is kept for a day
     * past its expiry) — or null when no such link exists. The verify route sends a refused sign-in back there with
     * the reason (docs/api.md §5.1).
     */
    async returnTo(tenantId: string, token: string): Promise<string | null> {
      const [row] = await platformEm(deps.orm)
        .getConnection()
        .execute<{ return_to: string }[]>(`select return_to from magic_links where token_hash = ? and tenant_id = ?`, [
          tokenHash(token),
          tenantId,
        ]);
      return row?.return_to ?? null;
    },

    /**
     * Uses a magic link once: signs its address in (or links it) under the provider's join policy.
     * @throws ApiError `401 magic_link_invalid` (unknown, used, expired, or another tenant's token), and as
     *   identities.ts `signInIdentity` (`403 signin_not_allowed`, `409 identity_linked_elsewhere`,
     *   `409 plan_limit_reached`; the link is then used up).
     */
    async verify(tenantId: string, token: string): Promise<FinishedLogin> {
      const [row] = await platformEm(deps.orm)
        .getConnection()
        .execute<{ provider_id: string; email: string; return_to: string; link_owner_id: string | null }[]>(
          `update magic_links set used_at = now() where token_hash = ? and tenant_id = ? and used_at is null and expires_at > now()
            returning provider_id, email, return_to, link_owner_id`,
          [tokenHash(token), tenantId],
        );
      if (!row)
        throw new ApiError('magic_link_invalid', 'this sign-in link is unknown, used or expired: ask for a new one');
      const p = await scoped(deps.orm, tenantId).findOne(SigninProvider, { id: row.provider_id, enabled: true });
      if (!p) throw new ApiError('magic_link_invalid', 'the email sign-in of this link is no longer offered');
      const who = {
        kind: 'email' as const,
        issuer: EMAIL_ISSUER,
        subject: row.email,
        email: row.email,
        emailVerified: true,
      };
      const signedIn = await signInIdentity(deps, p, who, row.link_owner_id);
      return { ...signedIn, returnTo: row.return_to, linked: row.link_owner_id !== null };
    },
  };
}
