/** A trader's own challenges and payouts (docs/api.md §3.5): another trader's are not found. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../../domain/errors.js';
import { Firm, Payout, PropAccount, PropTemplate, type PayoutRow, type PropAccountRow } from '../../../db/entities.js';
import type { Caller } from '../../../api/context.js';
import { toChallengeView } from '../presenters/prop.js';

/** At most this many challenges in a trader's list. */
const MAX_CHALLENGES = 500;

/** A challenge as its trader sees it, with its firm's deposit instructions (`em` is tenant-scoped). */
export async function challengeView(em: EntityManager, pa: PropAccountRow) {
  const [firm, template] = await Promise.all([
    em.findOneOrFail(Firm, { id: pa.firmId }),
    em.findOneOrFail(PropTemplate, { id: pa.templateId }),
  ]);
  return toChallengeView(pa, firm, template);
}

/** The caller's challenges, newest first: `{ data }`. */
export async function myChallenges(em: EntityManager, caller: Caller) {
  const rows = await em.find(
    PropAccount,
    { ownerId: caller.ownerId },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: MAX_CHALLENGES },
  );
  return { data: await Promise.all(rows.map((r) => challengeView(em, r))) };
}

/** The caller's challenge `id`. @throws ApiError `404 prop_account_not_found`. */
export async function myChallenge(em: EntityManager, caller: Caller, id: string): Promise<PropAccountRow> {
  const pa = await em.findOne(PropAccount, { id, ownerId: caller.ownerId });
  if (!pa) throw new ApiError('prop_account_not_found', `no challenge ${id} of yours`);
  return pa;
}

/** The payout `id` of one of the caller's challenges. @throws ApiError `404 payout_not_found`. */
export async function myPayout(em: EntityManager, caller: Caller, id: string): Promise<PayoutRow> {
  const p = await em.findOne(Payout, { id });
  if (!p || !(await em.findOne(PropAccount, { id: p.propAccountId, ownerId: caller.ownerId })))
    throw new ApiError('payout_not_found', `no payout ${id} of yours`);
  return p;
}
