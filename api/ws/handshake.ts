/**
 * Single-use WebSocket handshake tokens (docs/api.md §2.3, §6.2): `POST /api/auth/bootstrap` issues them;
 * the first `Authenticate` that presents one consumes it.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { platformEm } from '../../db/orm.js';
import { tokenHash } from '../../domain/auth/secrets.js';

/**
 * Consumes an unexpired, unconsumed handshake token of the tenant; returns its credential and
 * account, or null when the token is unknown, consumed or expired (answer `token_invalid`).
 */
export async function consumeHandshakeToken(
  orm: MikroORM,
  token: string,
  tenantId: string,
): Promise<{ credentialId: string; accountId: string | null } | null> {
  const rows = await platformEm(orm)
    .getConnection()
    .execute<{ credential_id: string; account_id: string | null }[]>(
      `update handshake_tokens set consumed_at = now()
      where token_hash = ? and channel = 'risk' and tenant_id = ? and consumed_at is null and expires_at > now()
      returning credential_id, account_id`,
      [tokenHash(token), tenantId],
    );
  return rows[0] ? { credentialId: rows[0].credential_id, accountId: rows[0].account_id } : null;
}
