/**
 * Self-serve tenant signup (docs/api.md §4.1, §5.6: `/api/public/tenants/*` needs no tenant and no auth;
 * issue 7). Slug rules: 3-32 characters of a-z, 0-9 and inner hyphens, starting with a letter, not
 * reserved (domain/tenant/config.ts); a slug is taken by an existing tenant or by an unexpired
 * pending signup (`409 slug_taken`).
 *
 * - `POST /api/public/tenants/signup` `{ email, slug }` → 202 pending; a mail with the token goes
 *   through the outbox (db/mail.ts: SMTP when `SMTP_URL` is set; dev: a file under `MAIL_DIR`, and the link in the api's log).
 * - `POST /api/public/tenants/verify` `{ token }` → 201: the tenant, an admin invite (mailed), and
 *   where enabled (`SIGNUP_OPERATOR_CREDENTIAL`) an operator credential with `firm:operate` and
 *   `prop:manage` (secret shown once). A wrong, used or expired token: `400 signup_token_invalid`.
 * - `POST /api/public/tenants/invites/accept` `{ token }` (the admin invite mail's token) → 201 an
 *   operator credential with every operator scope, `tenant:config` included (secret shown once);
 *   each invite once (`400 signup_token_invalid` after).
 */
import Router from '@koa/router';
import { createHash, randomBytes } from 'node:crypto';
import { ApiError } from '../../domain/errors.js';
import { Tenant } from '../../db/entities.js';
import { platformEm } from '../../db/orm.js';
import { deliverOutbox, logDelivery, queueMail } from '../../db/mail.js';
import { mailTransport } from '../../activities/mail/transports.js';
import { DEFAULT_FEES, issueCredential } from '../../db/seed.js';
import type { ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { acceptInviteBody, acceptInviteView, signupBody, signupView, verifyBody, verifyView } from './signup.schemas.js';

const SIGNUP_TTL_MS = 24 * 60 * 60 * 1000;
const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** What an accepted admin invite grants: every operator scope of the tenant. */
const ADMIN_SCOPES = ['tenant:config', 'firm:operate', 'prop:manage', 'accounts:intervene'] as const;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const token = () => randomBytes(32).toString('base64url');

export function signupRoutes(deps: ApiDeps, openapi: OpenApiRegistry, baseUrl: () => string): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/public/tenants' });
  const tags = ['tenants'];
  const transport = mailTransport(deps.config.mail);
  const flushMail = () =>
    deliverOutbox(deps.orm, transport).then(
      (report) => logDelivery(deps.logger, transport.kind, report),
      (err) => deps.logger.error({ err }, 'mail outbox delivery failed; the mail stays queued'),
    );

  endpoint(router, openapi, { method: 'post', path: '/signup', summary: 'Start a white-label tenant: mails a verification token', tags, schemas: { body: signupBody }, responses: { '202': { description: 'Pending verification', schema: signupView } } }, async (ctx, { body }) => {
    const em = platformEm(deps.orm);
    const id = `sig_${randomBytes(8).toString('hex')}`;
    const secret = token();
    const expiresAt = new Date(Date.now() + SIGNUP_TTL_MS);
    await em.transactional(async (tx) => {
      const conn = tx.getConnection();
      await conn.execute('select pg_advisory_xact_lock(hashtext(?))', [`signup:${body.slug}`], 'all', tx.getTransactionContext());
      const pending = await conn.execute<{ n: number }[]>('select count(*)::int as n from tenant_signups where slug = ? and verified_at is null and expires_at > now()', [body.slug], 'all', tx.getTransactionContext());
      if ((await tx.count(Tenant, { slug: body.slug })) > 0 || pending[0].n > 0) throw new ApiError('slug_taken', `the slug ${body.slug} is taken`);
      await conn.execute('insert into tenant_signups (id, email, slug, token_hash, expires_at) values (?, ?, ?, ?, ?)', [id, body.email, body.slug, sha256(secret), expiresAt], 'run', tx.getTransactionContext());
      const link = `${baseUrl()}/api/public/tenants/verify?token=${secret}`;
      await queueMail(tx, { to: body.email, subject: `Verify ${body.slug}`, body: `Verify your tenant ${body.slug}: POST ${baseUrl()}/api/public/tenants/verify with {"token":"${secret}"}\n(${link})\nThe token expires at ${expiresAt.toISOString()}.` });
      deps.logger.info({ slug: body.slug, link }, 'tenant signup: verification link');
    });
    await flushMail();
    ctx.status = 202;
    ctx.body = { signupId: id, email: body.email, slug: body.slug, status: 'pending_verification', expiresAt: expiresAt.toISOString() };
  });

  endpoint(router, openapi, { method: 'post', path: '/verify', summary: 'Verify a signup: provisions the tenant, an admin invite and (where enabled) an operator credential', tags, schemas: { body: verifyBody }, responses: { '201': { description: 'Tenant provisioned', schema: verifyView } } }, async (ctx, { body }) => {
    const em = platformEm(deps.orm);
    const invite = { id: `inv_${randomBytes(8).toString('hex')}`, secret: token(), expiresAt: new Date(Date.now() + INVITE_TTL_MS) };
    // One unit of work: the signup is used, the tenant, the invite and its mail exist, or none of them.
    const { signup, tenant } = await em.transactional(async (tx) => {
      const conn = tx.getConnection();
      const [row] = await conn.execute<{ id: string; email: string; slug: string }[]>(
        `update tenant_signups set verified_at = now() where token_hash = ? and verified_at is null and expires_at > now() returning id, email, slug`,
        [sha256(body.token)],
        'all',
        tx.getTransactionContext(),
      );
      if (!row) throw new ApiError('signup_token_invalid', 'this token is unknown, used or expired; sign up again');
      if (await tx.count(Tenant, { slug: row.slug })) throw new ApiError('slug_taken', `the slug ${row.slug} is taken`);
      const created = tx.create(Tenant, { id: `ten_${randomBytes(8).toString('hex')}`, slug: row.slug, displayName: row.slug, origins: [], isPlatform: false, suspended: false, feeSchedule: DEFAULT_FEES }, { partial: true });
      await tx.flush();
      await conn.execute('update tenant_signups set tenant_id = ? where id = ?', [created.id, row.id], 'run', tx.getTransactionContext());
      await conn.execute(`insert into tenant_invites (id, tenant_id, email, role, token_hash, expires_at) values (?, ?, ?, 'admin', ?, ?)`, [invite.id, created.id, row.email, sha256(invite.secret), invite.expiresAt], 'run', tx.getTransactionContext());
      await queueMail(tx, { to: row.email, subject: `You are the admin of ${row.slug}`, body: `Your tenant ${row.slug} is ready (X-Tenant-Slug: ${row.slug}).\nAdmin invite token: ${invite.secret}\nIt expires at ${invite.expiresAt.toISOString()}.` });
      return { signup: row, tenant: created };
    });
    const operator = deps.config.signup.operatorCredential ? await issueCredential(deps.orm, { tenantId: tenant.id, audience: 'operator', scopes: ['firm:operate', 'prop:manage'], label: `signup ${signup.email}` }) : null;
    await flushMail();
    ctx.status = 201;
    ctx.body = {
      tenant: { id: tenant.id, slug: tenant.slug, displayName: tenant.displayName },
      adminInvite: { id: invite.id, email: signup.email, role: 'admin', expiresAt: invite.expiresAt.toISOString() },
      operator: operator ? { apiKey: operator.apiKey, apiSecret: operator.apiSecret, scopes: ['firm:operate', 'prop:manage'] } : null,
    };
  });

  endpoint(router, openapi, { method: 'post', path: '/invites/accept', summary: 'Accept an admin invite: an operator credential with every operator scope of the tenant', tags, schemas: { body: acceptInviteBody }, responses: { '201': { description: 'Credential (secret shown once)', schema: acceptInviteView } } }, async (ctx, { body }) => {
    const em = platformEm(deps.orm);
    const [invite] = await em
      .getConnection()
      .execute<{ tenant_id: string; email: string }[]>(`update tenant_invites set accepted_at = now() where token_hash = ? and accepted_at is null and expires_at > now() returning tenant_id, email`, [sha256(body.token)]);
    if (!invite) throw new ApiError('signup_token_invalid', 'this invite token is unknown, used or expired');
    const tenant = await em.findOneOrFail(Tenant, { id: invite.tenant_id });
    const cred = await issueCredential(deps.orm, { tenantId: tenant.id, audience: 'operator', scopes: [...ADMIN_SCOPES], label: `admin ${invite.email}` });
    ctx.status = 201;
    ctx.body = { tenant: { id: tenant.id, slug: tenant.slug }, operator: { apiKey: cred.apiKey, apiSecret: cred.apiSecret, scopes: [...ADMIN_SCOPES] } };
  });

  return router;
}
