/**
 * Self-serve tenant signup (docs/api.md §4.1, §5.6: `/api/public/tenants/*` needs no tenant and no auth;
 * issue 7). Slug rules: 3-32 characters of a-z, 0-9 and inner hyphens, starting with a letter, not
 * reserved (domain/tenant/config.ts); a slug is taken by an existing tenant or by an unexpired
 * pending signup (`409 slug_taken`). Mail goes through the outbox (db/mail.ts) and is flushed at
 * once through the configured transport (infra/mail.ts: SMTP when `SMTP_URL` is set; dev: a file
 * under `MAIL_DIR`, whose path the api logs as the mail's `ref`); the workers retry what fails. The
 * token is a secret: it is in the mail only, never in the log.
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from '../../../domain/errors.js';
import { tokenHash } from '../../../domain/auth/secrets.js';
import { newId } from '../../../domain/ids.js';
import { Tenant } from '../../../db/entities.js';
import { deliverOutbox, logDelivery, queueMail } from '../../../db/mail.js';
import { platformEm } from '../../../db/orm.js';
import { DEFAULT_FEES, issueCredential } from '../../../db/seed.js';
import { mailTransport } from '../../../infra/mail.js';
import type { ApiDeps } from '../../../api/context.js';

const SIGNUP_TTL_MS = 24 * 60 * 60 * 1000;
const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** What an accepted admin invite grants: every operator scope of the tenant. */
const ADMIN_SCOPES = [
  'tenant:config',
  'firm:operate',
  'prop:manage',
  'accounts:intervene',
  'credentials:manage',
] as const;
/** What a verified signup's operator credential (where enabled) grants. */
const SIGNUP_SCOPES = ['firm:operate', 'prop:manage'] as const;
const token = () => randomBytes(32).toString('base64url');

/** The signup flow of one api process: its mail transport, and `baseUrl` for the links it mails. */
export function signupFlow(deps: ApiDeps, baseUrl: () => string) {
  const transport = mailTransport(deps.config.mail);
  /** Sends what is queued now; a failure leaves the mail queued for the workers. */
  const flushMail = () =>
    deliverOutbox(deps.orm, transport).then(
      (report) => logDelivery(deps.logger, transport.kind, report),
      (err) => deps.logger.error({ err }, 'mail outbox delivery failed; the mail stays queued'),
    );

  return {
    /**
     * Starts a signup: mails a verification token (24 h) to `email`; answers the pending signup.
     * @throws ApiError `409 slug_taken`.
     */
    async start(body: { email: string; slug: string }) {
      const em = platformEm(deps.orm);
      const id = newId('sig');
      const secret = token();
      const expiresAt = new Date(Date.now() + SIGNUP_TTL_MS);
      await em.transactional(async (tx) => {
        const conn = tx.getConnection();
        const trx: unknown = tx.getTransactionContext();
        await conn.execute('select pg_advisory_xact_lock(hashtext(?))', [`signup:${body.slug}`], 'all', trx);
        const pending = await conn.execute<{ n: number }[]>(
          'select count(*)::int as n from tenant_signups where slug = ? and verified_at is null and expires_at > now()',
          [body.slug],
          'all',
          trx,
        );
        if ((await tx.count(Tenant, { slug: body.slug })) > 0 || pending[0].n > 0)
          throw new ApiError('slug_taken', `the slug ${body.slug} is taken`);
        await conn.execute(
          'insert into tenant_signups (id, email, slug, token_hash, expires_at) values (?, ?, ?, ?, ?)',
          [id, body.email, body.slug, tokenHash(secret), expiresAt],
          'run',
          trx,
        );
        const link = `${baseUrl()}/api/public/tenants/verify?token=${secret}`;
        const text =
          `Verify your tenant ${body.slug}: POST ${baseUrl()}/api/public/tenants/verify with {"token":"${secret}"}\n(${link})\n` +
          `The token expires at ${expiresAt.toISOString()}.`;
        await queueMail(tx, { to: body.email, subject: `Verify ${body.slug}`, body: text });
        deps.logger.info({ slug: body.slug, signupId: id }, 'tenant signup: verification mail queued');
      });
      await flushMail();
      return {
        signupId: id,
        email: body.email,
        slug: body.slug,
        status: 'pending_verification',
        expiresAt: expiresAt.toISOString(),
      };
    },

    /**
     * Verifies a signup: in one unit of work the signup is used and the tenant, an admin invite (7
     * days) and its mail exist, or none of them; then, where enabled (`SIGNUP_OPERATOR_CREDENTIAL`),
     * an operator credential with `firm:operate` and `prop:manage` (secret shown once).
     * @throws ApiError `400 signup_token_invalid` (wrong, used or expired token), `409 slug_taken`.
     */
    async verify(signupToken: string) {
      const em = platformEm(deps.orm);
      const invite = {
        id: newId('inv'),
        secret: token(),
        expiresAt: new Date(Date.now() + INVITE_TTL_MS),
      };
      const { signup, tenant } = await em.transactional(async (tx) => {
        const conn = tx.getConnection();
        const trx: unknown = tx.getTransactionContext();
        const [row] = await conn.execute<{ id: string; email: string; slug: string }[]>(
          `update tenant_signups set verified_at = now() where token_hash = ? and verified_at is null and expires_at > now() returning id, email, slug`,
          [tokenHash(signupToken)],
          'all',
          trx,
        );
        if (!row) throw new ApiError('signup_token_invalid', 'this token is unknown, used or expired; sign up again');
        if (await tx.count(Tenant, { slug: row.slug }))
          throw new ApiError('slug_taken', `the slug ${row.slug} is taken`);
        const fields = {
          id: newId('ten'),
          slug: row.slug,
          displayName: row.slug,
          origins: [],
          isPlatform: false,
          suspended: false,
          feeSchedule: DEFAULT_FEES,
        };
        const created = tx.create(Tenant, fields, { partial: true });
        await tx.flush();
        await conn.execute('update tenant_signups set tenant_id = ? where id = ?', [created.id, row.id], 'run', trx);
        await conn.execute(
          `insert into tenant_invites (id, tenant_id, email, role, token_hash, expires_at) values (?, ?, ?, 'admin', ?, ?)`,
          [invite.id, created.id, row.email, tokenHash(invite.secret), invite.expiresAt],
          'run',
          trx,
        );
        const text =
          `Your tenant ${row.slug} is ready (X-Tenant-Slug: ${row.slug}).\nAdmin invite token: ${invite.secret}\n` +
          `It expires at ${invite.expiresAt.toISOString()}.`;
        await queueMail(tx, { to: row.email, subject: `You are the admin of ${row.slug}`, body: text });
        return { signup: row, tenant: created };
      });
      const operator = deps.config.signup.operatorCredential
        ? await issueCredential(deps.orm, {
            tenantId: tenant.id,
            audience: 'operator',
            scopes: [...SIGNUP_SCOPES],
            label: `signup ${signup.email}`,
          })
        : null;
      await flushMail();
      return {
        tenant: { id: tenant.id, slug: tenant.slug, displayName: tenant.displayName },
        adminInvite: { id: invite.id, email: signup.email, role: 'admin', expiresAt: invite.expiresAt.toISOString() },
        operator: operator
          ? { apiKey: operator.apiKey, apiSecret: operator.apiSecret, scopes: [...SIGNUP_SCOPES] }
          : null,
      };
    },

    /**
     * Accepts an admin invite (each once): an operator credential with every operator scope,
     * `tenant:config` included (secret shown once). @throws ApiError `400 signup_token_invalid`.
     */
    async acceptInvite(inviteToken: string) {
      const em = platformEm(deps.orm);
      const [invite] = await em
        .getConnection()
        .execute<{ tenant_id: string; email: string }[]>(
          `update tenant_invites set accepted_at = now() where token_hash = ? and accepted_at is null and expires_at > now() returning tenant_id, email`,
          [tokenHash(inviteToken)],
        );
      if (!invite) throw new ApiError('signup_token_invalid', 'this invite token is unknown, used or expired');
      const tenant = await em.findOneOrFail(Tenant, { id: invite.tenant_id });
      const cred = await issueCredential(deps.orm, {
        tenantId: tenant.id,
        audience: 'operator',
        scopes: [...ADMIN_SCOPES],
        label: `admin ${invite.email}`,
      });
      return {
        tenant: { id: tenant.id, slug: tenant.slug },
        operator: { apiKey: cred.apiKey, apiSecret: cred.apiSecret, scopes: [...ADMIN_SCOPES] },
      };
    },
  };
}
