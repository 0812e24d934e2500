/**
 * Activities of `challenge-<propAccountId>` (docs/api.md §3.5; modules/prop/workflows/challenge.ts).
 *
 * - `checkChallengeDeposit`: looks for the `ChallengeDeposit(propAccountId, payer, amount)` events
 *   the PropInstance emitted for this account; once they reach the template price the deposit is
 *   recorded (ledger `pay_in`, ref `pay_in:<tx>:<logIndex>`, once) and the account becomes `active`.
 * - `evaluateChallengeRules`: values the account at the current marks (paper venue), moves the
 *   peak, the UTC day's starting equity and the trading-day count (days with a fill), and applies
 *   domain/prop/rules.ts. A breach makes the account terminal (`breached`; the trading account is
 *   suspended so compose refuses new orders; the deposit is recorded as `forfeit`); a pass moves
 *   no money and records the payout ceiling.
 * Every write happens in one transaction, and re-running either activity is harmless.
 */
import { ApplicationFailure } from '@temporalio/common';
import { createPublicClient, http, parseAbiItem, type Address } from 'viem';
import {
  Account,
  AccountBalance,
  Credential,
  Firm,
  Fill,
  Position,
  PropAccount,
  PropLedgerEntry,
  PropTemplate,
} from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import { marksFor } from '../../../db/account-state.js';
import { sqlOf } from '../../../db/sql.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal, fmt } from '../../../domain/decimal.js';
import { venueState } from '../../../domain/paper/account.js';
import { evaluateChallenge, templateRules, unitsToUsd, usdToUnits } from '../../../domain/prop/rules.js';
import type { Client } from '@temporalio/client';
import type { BatchInput } from '../../oms/workflows/batch.definitions.js';
import { challengeWorkflowId, evaluateSignal, type ChallengeStatus } from '../workflows/challenge.definitions.js';
import type { DispatchOutcome } from '../../../activities/types.js';
import { idBytes32 } from '../../../domain/prop/commitments.js';
import { rpcOf, type PropDeps } from './chain-deps.js';

const DEPOSIT_EVENT = parseAbiItem(
  'event ChallengeDeposit(bytes32 indexed propAccountId, address indexed payer, uint256 amount)',
);

/** The outcome of one evaluation, as the workflow needs it. */
export type EvaluationResult = { outcome: 'active' | 'passed' | 'breached' | 'stopped'; status: ChallengeStatus };

const view = (
  pa: {
    id: string;
    status: string;
    depositTxHash?: string | null;
    breachReason?: string | null;
    payoutCeilingUsd?: string | null;
  },
  flattenBatchId: string | null = null,
): ChallengeStatus => ({
  propAccountId: pa.id,
  status: pa.status as ChallengeStatus['status'],
  depositTxHash: pa.depositTxHash ?? null,
  breachReason: pa.breachReason ?? null,
  payoutCeilingUsd: pa.payoutCeilingUsd ?? null,
  flattenBatchId,
});

/** Batch id of the flatten that follows a breach of one attempt. */
export const breachBatchId = (propAccountId: string, attempt: number) =>
  `bat_breach_${propAccountId.replace(/^pa_/, '')}_${attempt}`;

export function challengeActivities(deps: PropDeps) {
  return {
    /** Records the challenge deposit once the instance holds the price for this account (module doc). */
    async checkChallengeDeposit(tenantId: string, propAccountId: string): Promise<ChallengeStatus> {
      const em = scoped(deps.orm, tenantId);
      const pa = await em.findOneOrFail(PropAccount, { id: propAccountId });
      if (pa.status !== 'pending_payment') return view(pa);
      const [firm, template] = await Promise.all([
        em.findOneOrFail(Firm, { id: pa.firmId }),
        em.findOneOrFail(PropTemplate, { id: pa.templateId }),
      ]);
      if (!firm.instanceAddress)
        throw ApplicationFailure.create({
          type: 'invalid_state',
          message: `firm ${firm.id} is not deployed`,
          nonRetryable: true,
        });
      const client = createPublicClient({ transport: http(rpcOf(deps.chain), { retryCount: 0 }) });
      const logs = await client.getLogs({
        address: firm.instanceAddress as Address,
        event: DEPOSIT_EVENT,
        args: { propAccountId: idBytes32(propAccountId) },
        fromBlock: firm.deployBlock ? BigInt(firm.deployBlock) : 0n,
        toBlock: 'latest',
      });
      const paid = logs.reduce((sum, l) => sum + (l.args.amount ?? 0n), 0n);
      if (logs.length === 0 || paid < usdToUnits(template.priceUsd)) return view(pa);
      await em.transactional(async (tx) => {
        for (const l of logs) {
          const ref = `pay_in:${l.transactionHash}:${l.logIndex}`;
          if (!(await tx.findOne(PropLedgerEntry, { ref })))
            tx.create(PropLedgerEntry, {
              id: `pl_${ref.slice(7, 27)}_${l.logIndex}`,
              tenantId,
              firmId: firm.id,
              propAccountId,
              kind: 'pay_in',
              amountUsd: unitsToUsd(l.args.amount ?? 0n),
              txHash: l.transactionHash,
              ref,
            });
        }
        const row = await tx.findOneOrFail(PropAccount, { id: propAccountId });
        Object.assign(row, {
          status: 'active',
          depositTxHash: logs[0].transactionHash,
          payerAddress: logs[0].args.payer ?? null,
        });
      });
      return view(await em.findOneOrFail(PropAccount, { id: propAccountId }, { refresh: true }));
    },

    /** One evaluation of the rules (module doc). `stopped` when the account is no longer `active` (suspended, reset, promoted). */
    async evaluateChallengeRules(tenantId: string, propAccountId: string, nowMs?: number): Promise<EvaluationResult> {
      const now = new Date(nowMs ?? Date.now());
      return scoped(deps.orm, tenantId).transactional(async (em) => {
        const pa = await em.findOneOrFail(PropAccount, { id: propAccountId }, { lockMode: 4 /* PESSIMISTIC_WRITE */ });
        if (pa.status !== 'active') return { outcome: 'stopped', status: view(pa) };
        const template = await em.findOneOrFail(PropTemplate, { id: pa.templateId });
        const equity = await paperEquity(em, pa.accountId);
        const day = now.toISOString().slice(0, 10);
        if (pa.day !== day) Object.assign(pa, { day, dayStartEquityUsd: fmt(equity) });
        const fills = await em.find(
          Fill,
          { accountId: pa.accountId, executedAt: { $gte: pa.attemptStartedAt } },
          { fields: ['executedAt'] },
        );
        pa.tradingDays = new Set(fills.map((f) => f.executedAt.toISOString().slice(0, 10))).size;
        const v = evaluateChallenge(templateRules(template), {
          startingBalanceUsd: pa.startingBalanceUsd,
          peakEquityUsd: pa.peakEquityUsd,
          dayStartEquityUsd: pa.dayStartEquityUsd,
          equityUsd: fmt(equity),
          tradingDays: pa.tradingDays,
        });
        pa.peakEquityUsd = v.peakEquityUsd;
        if (v.outcome === 'breached') {
          Object.assign(pa, { status: 'breached', breachReason: `${v.reason}: ${v.detail}`, breachedAt: now });
          const account = await em.findOneOrFail(Account, { id: pa.accountId });
          Object.assign(account, { suspendedAt: now, suspensionReason: `challenge breached (${v.reason})` });
          const ref = `forfeit:${pa.id}:${pa.attempt}`;
          if (pa.attempt === 1 && !(await em.findOne(PropLedgerEntry, { ref })))
            em.create(PropLedgerEntry, {
              id: `pl_forfeit_${pa.id.replace(/^pa_/, '')}`,
              tenantId,
              firmId: pa.firmId,
              propAccountId: pa.id,
              kind: 'forfeit',
              amountUsd: template.priceUsd,
              txHash: null,
              ref,
            });
        } else if (v.outcome === 'passed') {
          Object.assign(pa, { status: 'passed', payoutCeilingUsd: v.payoutCeilingUsd, passedAt: now });
        }
        return {
          outcome: v.outcome,
          status: view(pa, v.outcome === 'breached' ? breachBatchId(pa.id, pa.attempt) : null),
        };
      });
    },

    /** The flatten batch of a breached account: its positions and working orders, on the trader's own credential. */
    async breachFlattenInput(tenantId: string, propAccountId: string): Promise<BatchInput> {
      const em = scoped(deps.orm, tenantId);
      const pa = await em.findOneOrFail(PropAccount, { id: propAccountId });
      const cred = await em.findOne(
        Credential,
        { ownerId: pa.ownerId, audience: 'trader' },
        { orderBy: { createdAt: 'asc' } },
      );
      if (!cred)
        throw ApplicationFailure.create({
          type: 'invalid_state',
          message: `no trader credential of ${pa.ownerId} to flatten with`,
          nonRetryable: true,
        });
      return {
        batchId: breachBatchId(pa.id, pa.attempt),
        kind: 'flatten',
        tenantId,
        accountId: pa.accountId,
        credentialId: cred.id,
      };
    },
  };
}

/** Equity of an account on the paper venue at the current marks, USD. */
async function paperEquity(em: EntityManager, accountId: string): Promise<Decimal> {
  const balance = await em.findOne(AccountBalance, { accountId, venue: 'paper' });
  const positions = await em.find(Position, { accountId, venue: 'paper', qty: { $ne: '0' } });
  const marks = await marksFor(sqlOf(em), positions);
  const s = venueState(
    new Decimal(balance?.balanceUsd ?? '0'),
    positions.map((p) => ({
      qty: new Decimal(p.qty),
      avgEntryPrice: new Decimal(p.avgEntryPrice),
      mark: marks.get(`${p.venue} ${p.symbol}`) ?? new Decimal(p.avgEntryPrice),
      leverage: new Decimal(p.leverage),
    })),
  );
  return s.equityUsd;
}

/**
 * After an execution of an order of the account whose active challenge is `challengeId` (the prop account id the
 * ledger's account lock read, modules/oms/activities/ledger.ts `LockedAccount`; null: not a challenge): when the
 * order has filled, signals the challenge workflow to evaluate the rules now (docs/api.md §3.5 "on every fill").
 * Best effort: a missing workflow is ignored (the timer evaluates anyway).
 */
export async function nudgeChallenge(
  deps: { temporal: Client },
  challengeId: string | null,
  outcome: DispatchOutcome,
): Promise<void> {
  if (!challengeId || !outcome.filledQty || new Decimal(outcome.filledQty).isZero()) return;
  await deps.temporal.workflow
    .getHandle(challengeWorkflowId(challengeId))
    .signal(evaluateSignal)
    .catch(() => undefined);
}
