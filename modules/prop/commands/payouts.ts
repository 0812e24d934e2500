/**
 * `POST /api/v1/prop/payouts` (docs/api.md §3.5): a trader requests a payout of a passed or funded
 * challenge; the workflow `payout-<payoutId>` has the firm's owners authorise it and execute it on-chain.
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from '../../../domain/errors.js';
import { Decimal, ZERO, fmt } from '../../../domain/decimal.js';
import { Payout, PropAccount, type PayoutRow } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import { searchAttributes } from '../../../workflows/shared.definitions.js';
import { payoutWorkflowId } from '../workflows/payout.definitions.js';
import { payoutWorkflow } from '../workflows/payout.js';
import type { ApiDeps, Caller } from '../../../api/context.js';

/** The payout statuses that hold part of the payout ceiling until they are paid (docs/api.md §3.5). */
const PENDING_PAYOUT_STATUSES = ['requested', 'authorized'];

/**
 * Requests `amountUsd` (decimal string) of the caller's challenge to `toAddress` and starts the
 * payout's workflow (without it the request is removed again).
 * @throws ApiError `404 prop_account_not_found`, `409 invalid_state` (not passed or funded),
 *   `400 payout_exceeds_ceiling` (above the ceiling less what is paid or pending; a canceled payout is neither).
 */
export async function requestPayout(
  deps: ApiDeps,
  caller: Caller,
  body: { propAccountId: string; amountUsd: string; toAddress: string },
): Promise<PayoutRow> {
  const em = scoped(deps.orm, caller.tenantId);
  const id = `po_${randomBytes(8).toString('hex')}`;
  const payout = await em.transactional(async (tx) => {
    const pa = await tx.findOne(
      PropAccount,
      { id: body.propAccountId, ownerId: caller.ownerId },
      { lockMode: 4 /* PESSIMISTIC_WRITE */ },
    );
    if (!pa) throw new ApiError('prop_account_not_found', `no challenge ${body.propAccountId} of yours`);
    if (pa.status !== 'passed' && pa.status !== 'funded')
      throw new ApiError('invalid_state', `challenge ${pa.id} is ${pa.status}; payouts follow a pass`);
    // Pending: requested or authorized. Executed payouts are in `paidOutUsd`; canceled and rejected ones count for nothing.
    const pending = (await tx.find(Payout, { propAccountId: pa.id, status: { $in: PENDING_PAYOUT_STATUSES } })).reduce(
      (s, p) => s.add(p.amountUsd),
      ZERO,
    );
    const room = new Decimal(pa.payoutCeilingUsd ?? '0').sub(pa.paidOutUsd).sub(pending);
    if (new Decimal(body.amountUsd).gt(room) || new Decimal(body.amountUsd).lte(0)) {
      const ceiling = `ceiling ${pa.payoutCeilingUsd ?? '0'}, paid ${pa.paidOutUsd}, pending ${fmt(pending)}`;
      throw new ApiError(
        'payout_exceeds_ceiling',
        `at most ${fmt(Decimal.max(room, ZERO))} USD can be requested now (${ceiling})`,
      );
    }
    const fields = {
      id,
      tenantId: caller.tenantId,
      firmId: pa.firmId,
      propAccountId: pa.id,
      amountUsd: fmt(new Decimal(body.amountUsd)),
      toAddress: body.toAddress,
      status: 'requested',
    };
    return { accountId: pa.accountId, row: tx.create(Payout, fields, { partial: true }) };
  });
  try {
    await deps.temporal.workflow.start(payoutWorkflow, {
      workflowId: payoutWorkflowId(id),
      taskQueue: deps.config.temporal.taskQueue,
      args: [{ tenantId: caller.tenantId, payoutId: id, pollMs: deps.config.chain.pollMs }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      typedSearchAttributes: searchAttributes({ tenantId: caller.tenantId, accountId: payout.accountId }),
    });
  } catch (err) {
    await em.nativeDelete(Payout, { id });
    throw err;
  }
  return payout.row;
}
