/**
 * Reads of the caller's own intents (docs/api.md §4.4 `GET /oms/intents`, `GET /oms/intents/{id}`):
 * another credential's intent is not found.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../../../domain/errors.js';
import { OrderIntent } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import { intentToView } from '../../../db/views.js';
import type { Caller } from '../../../api/context.js';

/** At most this many intents in `GET /oms/intents`. */
const RECENT_INTENTS = 50;

/** The caller's intent `id` as the API shows it. @throws ApiError `404 intent_not_found`. */
export async function ownIntent(orm: MikroORM, caller: Caller, id: string) {
  const row = await scoped(orm, caller.tenantId).findOne(OrderIntent, { id, credentialId: caller.credentialId });
  if (!row) throw new ApiError('intent_not_found', `no intent ${id} for this credential`);
  return intentToView(row);
}

/** The caller's most recent intents, newest first: `{ intents }`. */
export async function recentIntents(orm: MikroORM, caller: Caller) {
  const rows = await scoped(orm, caller.tenantId).find(
    OrderIntent,
    { credentialId: caller.credentialId },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: RECENT_INTENTS },
  );
  return { intents: rows.map(intentToView) };
}
