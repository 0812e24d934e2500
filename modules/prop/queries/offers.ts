/**
 * The challenge catalogue (docs/api.md §4.8, `GET /api/v1/prop/offers`): the templates a trader can buy,
 * those not archived of the caller's tenant's live firms; a draft, deploying, deployed or paused
 * firm offers nothing (the buy would answer `409 firm_not_live`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Firm, PropTemplate } from '../../../db/entities.js';
import { newestFirst } from '../../../api/operator-list.js';
import { toOfferView } from '../presenters/prop.js';

/**
 * One page of offers, newest template first (`em` is tenant-scoped): `{ data, nextCursor, hasMore }`,
 * `firmId` narrows to one firm (none when that firm is not live).
 * @throws ApiError `400 invalid_cursor` for a cursor this API did not issue.
 */
export async function liveOffers(em: EntityManager, query: { limit: number; cursor?: string; firmId?: string }) {
  const firms = await em.find(Firm, {
    status: 'live',
    instanceAddress: { $ne: null },
    ...(query.firmId ? { id: query.firmId } : {}),
  });
  const byId = new Map(firms.map((f) => [f.id, f]));
  return newestFirst(em, PropTemplate, { firmId: { $in: [...byId.keys()] }, archived: false }, query, (t) =>
    toOfferView(t, byId.get(t.firmId)!),
  );
}
