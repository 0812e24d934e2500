/**
 * The PostgreSQL reads behind the authentication cache (api/auth/auth-cache.ts): tenants
 * (api/middleware/tenant.ts `tenantLookup`, and by id), their rules (venues, flags, plan), credential rows
 * and the revoked token list.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { Credential, RevokedToken, Tenant } from '../../db/entities.js';
import { rulesOf } from '../../domain/tenant/entitlements.js';
import { platformEm } from '../../db/orm.js';
import { tenantLookup } from '../middleware/tenant.js';
import type { AuthSource } from './auth-cache.js';

/** {@link AuthSource} over `orm`, outside any tenant filter. */
export function authSource(orm: MikroORM): AuthSource {
  return {
    tenants: tenantLookup(orm),
    tenantRules: async (id) => rulesOf(await platformEm(orm).findOneOrFail(Tenant, { id })),
    credential: (id) => platformEm(orm).findOne(Credential, { id }, { filters: false }),
    isRevoked: async (jti) => (await platformEm(orm).count(RevokedToken, { jti })) > 0,
    // Raw rows carry the timestamp as text (MikroORM's execute): made a Date here.
    revokedTokens: async (limit) =>
      (
        await platformEm(orm)
          .getConnection()
          .execute<{ jti: string; expiresAt: string | Date }[]>(
            `select jti, expires_at as "expiresAt" from revoked_tokens where expires_at > now() limit ?`,
            [limit + 1],
          )
      ).map((r) => ({ jti: r.jti, expiresAt: new Date(r.expiresAt) })),
  };
}
