/**
 * Credential reads of credential management (docs/api.md §4.8 `/api/v1/operator/credentials`): the
 * caller's tenant's credentials, newest first, revoked ones included. Never a secret or its hash.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Credential } from '../../../db/entities.js';
import { newestFirst } from '../../../api/operator-list.js';
import { toCredentialView } from '../presenters/credentials.js';

/** The filters of the list: audience, the trader it acts for, its active account. */
export interface CredentialFilter {
  audience?: 'trader' | 'operator';
  ownerId?: string;
  accountId?: string;
}

/**
 * One page of the credentials matching `filter` (`em` is scoped to the caller's tenant).
 * @throws ApiError `400 invalid_cursor`.
 */
export function listCredentials(em: EntityManager, filter: CredentialFilter & { limit: number; cursor?: string }) {
  const { audience, ownerId, accountId, ...page } = filter;
  const where = Object.fromEntries(Object.entries({ audience, ownerId, accountId }).filter(([, v]) => v !== undefined));
  return newestFirst(em, Credential, where, page, toCredentialView);
}
