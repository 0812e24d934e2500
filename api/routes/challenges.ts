/**
 * The trader's side of the prop firm (docs/api.md §3.5; issue 6; trader audience). Paths are ours (the
 * spec shows none): `/api/v1/prop/*`.
 *
 * - `POST /api/v1/prop/challenges` `{ templateId }` → 201 challenge, `pending_payment`, with its
 *   own paper trading account funded with the template's account size and `deposit`: what the
 *   payer's wallet sends (approve the stablecoin, then `deposit(propAccountRef, amount)` on the
 *   firm's PropInstance: the deposit goes straight to the firm's contract). The workflow
 *   `challenge-<propAccountId>` sees the deposit on-chain, activates the account and watches its
 *   rules. `404 template_not_found`; `409 firm_not_live` unless the firm is live.
 * - `GET /api/v1/prop/challenges` → `{ data }` (the caller's), `GET /api/v1/prop/challenges/{id}`.
 * - `POST /api/v1/prop/payouts` `{ propAccountId, amountUsd, toAddress }` → 201 payout `requested`
 *   (workflow `payout-<payoutId>`; the firm's owners authorise it and execute it on-chain).
 *   `409 invalid_state` unless the challenge is `passed` or `funded`; `400 payout_exceeds_ceiling`
 *   above the payout ceiling less what is paid or pending.
 * - `GET /api/v1/prop/payouts/{id}` → the payout (the caller's own).
 */
import Router from '@koa/router';
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors.js';
import { Decimal, ZERO, fmt } from '../../domain/decimal.js';
import { usdToUnits } from '../../domain/prop/rules.js';
import { Account, AccountBalance, AccountEvent, AccountStateSnapshot, Firm, Payout, PropAccount, PropTemplate, type PropAccountRow } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { provisionPaperAccount } from '../../db/accounts.js';
import { idBytes32 } from '../../activities/prop/firm-deploy.js';
import { challengeWorkflowId, payoutWorkflowId, searchAttributes } from '../../workflows/definitions.js';
import { callerOf, gate } from '../middleware/auth.js';
import type { ApiDeps, ApiState, Caller } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { toPayoutView } from './firm-lifecycle.js';
import { propAccountView } from './prop-accounts.js';
import { payoutView } from './firm-lifecycle.schemas.js';
import { buyChallengeBody, challengeParams, challengeView, requestPayoutBody } from './challenges.schemas.js';

const newId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

export function challengeRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/prop' });
  const tags = ['prop'];
  const write = gate({ audience: 'trader', write: true });
  const read = gate({ audience: 'trader' });

  async function view(em: EntityManager, pa: PropAccountRow) {
    const [firm, template] = await Promise.all([em.findOneOrFail(Firm, { id: pa.firmId }), em.findOneOrFail(PropTemplate, { id: pa.templateId })]);
    const units = usdToUnits(template.priceUsd);
    const { id, ownerId: _owner, ...rest } = propAccountView(pa);
    return {
      propAccountId: id,
      ...rest,
      deposit: firm.instanceAddress
        ? {
            chainId: firm.chainId,
            instance: firm.instanceAddress,
            stablecoin: firm.stablecoinAddress,
            amountUsd: template.priceUsd,
            amountUnits: units.toString(),
            propAccountRef: idBytes32(pa.id),
            calls: [`${firm.stablecoinAddress}.approve(${firm.instanceAddress}, ${units})`, `${firm.instanceAddress}.deposit(${idBytes32(pa.id)}, ${units})`],
          }
        : null,
    };
  }

  async function mine(em: EntityManager, caller: Caller, id: string): Promise<PropAccountRow> {
    const pa = await em.findOne(PropAccount, { id, ownerId: caller.ownerId });
    if (!pa) throw new ApiError('prop_account_not_found', `no challenge ${id} of yours`);
    return pa;
  }

  endpoint(router, openapi, { method: 'post', path: '/challenges', summary: 'Buy a challenge: a funded paper account, paid by an on-chain deposit into the firm’s PropInstance', tags, gate: write, schemas: { body: buyChallengeBody }, responses: { '201': { description: 'Challenge (pending_payment)', schema: challengeView } } }, async (ctx, { body }) => {
    const caller = callerOf(ctx);
    const em = scoped(deps.orm, caller.tenantId);
    const template = await em.findOne(PropTemplate, { id: body.templateId, archived: false });
    if (!template) throw new ApiError('template_not_found', `no challenge template ${body.templateId}`);
    const firm = await em.findOneOrFail(Firm, { id: template.firmId });
    if (firm.status !== 'live') throw new ApiError('firm_not_live', `firm ${firm.id} is ${firm.status}; challenges are sold while it is live`);
    const id = newId('pa');
    const pa = await em.transactional(async (tx) => {
      const account = await provisionPaperAccount(tx, { tenantId: caller.tenantId, ownerId: caller.ownerId, name: `${template.name} challenge`, depositUsd: template.accountSizeUsd, tradingGroupId: template.tradingGroupId ?? null });
      return tx.create(PropAccount, { id, tenantId: caller.tenantId, firmId: firm.id, templateId: template.id, accountId: account.id, ownerId: caller.ownerId, status: 'pending_payment', startingBalanceUsd: template.accountSizeUsd, peakEquityUsd: template.accountSizeUsd, dayStartEquityUsd: template.accountSizeUsd, tradingDays: 0, paidOutUsd: '0', attempt: 1 }, { partial: true });
    });
    try {
      await deps.temporal.workflow.start('challengeWorkflow', { workflowId: challengeWorkflowId(id), taskQueue: deps.config.temporal.taskQueue, args: [{ tenantId: caller.tenantId, propAccountId: id, pollMs: deps.config.chain.pollMs }], workflowIdConflictPolicy: 'USE_EXISTING', typedSearchAttributes: searchAttributes({ tenantId: caller.tenantId, accountId: pa.accountId, venue: 'paper' }) });
    } catch (err) {
      // No orphan rows: without its workflow the challenge and its account are removed.
      await em.transactional(async (tx) => {
        await tx.nativeDelete(PropAccount, { id });
        await tx.nativeDelete(AccountStateSnapshot, { accountId: pa.accountId });
        await tx.nativeDelete(AccountEvent, { accountId: pa.accountId });
        await tx.nativeDelete(AccountBalance, { accountId: pa.accountId });
        await tx.nativeDelete(Account, { id: pa.accountId });
      });
      throw err;
    }
    ctx.status = 201;
    ctx.body = await view(em, await em.findOneOrFail(PropAccount, { id }));
  });

  endpoint(router, openapi, { method: 'get', path: '/challenges', summary: 'Your challenges, newest first', tags, gate: read, schemas: {}, responses: { '200': { description: '{ data }' } } }, async (ctx) => {
    const caller = callerOf(ctx);
    const em = scoped(deps.orm, caller.tenantId);
    const rows = await em.find(PropAccount, { ownerId: caller.ownerId }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: 500 });
    ctx.body = { data: await Promise.all(rows.map((r) => view(em, r))) };
  });

  endpoint(router, openapi, { method: 'get', path: '/challenges/:id', summary: 'One of your challenges', tags, gate: read, schemas: { params: challengeParams }, responses: { '200': { description: 'Challenge', schema: challengeView } } }, async (ctx, { params }) => {
    const caller = callerOf(ctx);
    const em = scoped(deps.orm, caller.tenantId);
    ctx.body = await view(em, await mine(em, caller, params.id));
  });

  endpoint(router, openapi, { method: 'post', path: '/payouts', summary: 'Request a payout of a passed or funded challenge (the firm’s multisig authorises and executes it)', tags, gate: write, schemas: { body: requestPayoutBody }, responses: { '201': { description: 'Payout (requested)', schema: payoutView } } }, async (ctx, { body }) => {
    const caller = callerOf(ctx);
    const em = scoped(deps.orm, caller.tenantId);
    const id = newId('po');
    const payout = await em.transactional(async (tx) => {
      const pa = await tx.findOne(PropAccount, { id: body.propAccountId, ownerId: caller.ownerId }, { lockMode: 4 /* PESSIMISTIC_WRITE */ });
      if (!pa) throw new ApiError('prop_account_not_found', `no challenge ${body.propAccountId} of yours`);
      if (pa.status !== 'passed' && pa.status !== 'funded') throw new ApiError('invalid_state', `challenge ${pa.id} is ${pa.status}; payouts follow a pass`);
      const pending = (await tx.find(Payout, { propAccountId: pa.id, status: { $in: ['requested', 'authorized'] } })).reduce((s, p) => s.add(p.amountUsd), ZERO);
      const room = new Decimal(pa.payoutCeilingUsd ?? '0').sub(pa.paidOutUsd).sub(pending);
      if (new Decimal(body.amountUsd).gt(room) || new Decimal(body.amountUsd).lte(0)) throw new ApiError('payout_exceeds_ceiling', `at most ${fmt(Decimal.max(room, ZERO))} USD can be requested now (ceiling ${pa.payoutCeilingUsd ?? '0'}, paid ${pa.paidOutUsd}, pending ${fmt(pending)})`);
      return { accountId: pa.accountId, row: tx.create(Payout, { id, tenantId: caller.tenantId, firmId: pa.firmId, propAccountId: pa.id, amountUsd: fmt(new Decimal(body.amountUsd)), toAddress: body.toAddress, status: 'requested' }, { partial: true }) };
    });
    try {
      await deps.temporal.workflow.start('payoutWorkflow', { workflowId: payoutWorkflowId(id), taskQueue: deps.config.temporal.taskQueue, args: [{ tenantId: caller.tenantId, payoutId: id, pollMs: deps.config.chain.pollMs }], workflowIdConflictPolicy: 'USE_EXISTING', typedSearchAttributes: searchAttributes({ tenantId: caller.tenantId, accountId: payout.accountId }) });
    } catch (err) {
      await em.nativeDelete(Payout, { id });
      throw err;
    }
    ctx.status = 201;
    ctx.body = toPayoutView(payout.row);
  });

  endpoint(router, openapi, { method: 'get', path: '/payouts/:id', summary: 'One of your payouts', tags, gate: read, schemas: { params: challengeParams }, responses: { '200': { description: 'Payout', schema: payoutView } } }, async (ctx, { params }) => {
    const caller = callerOf(ctx);
    const em = scoped(deps.orm, caller.tenantId);
    const p = await em.findOne(Payout, { id: params.id });
    if (!p || !(await em.findOne(PropAccount, { id: p.propAccountId, ownerId: caller.ownerId }))) throw new ApiError('payout_not_found', `no payout ${params.id} of yours`);
    ctx.body = toPayoutView(p);
  });

  return router;
}
