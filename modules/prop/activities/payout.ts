/**
 * Activities of `payout-<payoutId>` (docs/api.md §1 custody rules, §3.5; modules/prop/workflows/payout.ts).
 *
 * The platform never moves a firm's funds: a payout is `PropInstance.payout(payoutId, to, amount)`,
 * callable only by the instance's owner, the operator's multisig (a Safe). The platform prepares the
 * multisig transaction the owners sign at the Safe's current nonce (`preparePayout`), verifies their
 * signatures against the owners and threshold read on-chain (`authorizePayout`), follows the Safe
 * (`followPayoutSafe`: records the payout once the owner executed it — the instance's
 * `payoutExecuted(payoutId)` and its `PayoutExecuted` event — or rebuilds the transaction at the new
 * nonce when the Safe executed another one at its nonce), and cancels it at the operator's request
 * (`cancelPayout`). `checkPayoutExecution` is the execution check of runs from before the payout
 * followed the Safe.
 *
 * Every chain check reads the chain again, so a retried or replayed activity never records a payment
 * twice (the record is one locked transaction, its ledger `ref` unique) and never rebuilds a payout the
 * instance has paid.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { Address, Hex } from 'viem';
import { Firm, Payout, PropAccount, PropLedgerEntry, type FirmRow, type PayoutRow } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import { Decimal, fmt } from '../../../domain/decimal.js';
import { usdToUnits } from '../../../domain/prop/rules.js';
import {
  findPayoutExecution,
  payoutCall,
  readPayoutExecuted,
  readSafe,
  readSafeNonce,
  safeTxTypedData,
  verifySafeAuthorization,
} from '../chain/index.js';
import { recoverSafeTxSigners } from '../chain/safe.js';
import type { PayoutStatus } from '../workflows/payout.definitions.js';
import { idBytes32 } from '../../../domain/prop/commitments.js';
import { rpcOf, type PropDeps } from './chain-deps.js';

/** The multisig transaction of a payout, JSON-safe (numbers as decimal strings): what the owners sign. */
export interface PayoutSafeTx {
  safe: Address;
  chainId: number;
  to: Address;
  data: Hex;
  nonce: string;
  /** The EIP-712 typed data (domain, types, primaryType, message) to pass to `eth_signTypedData_v4`. */
  typedData: unknown;
  safeTxHash: Hex;
}

/**
 * What `followPayoutSafe` saw: the payout `executed` (recorded now or before), `rebuilt` at the Safe's new nonce
 * (`safeTx` is what to sign now), or still `pending` at its nonce.
 */
export type PayoutFollow =
  { kind: 'executed'; status: PayoutStatus } | { kind: 'rebuilt'; safeTx: PayoutSafeTx } | { kind: 'pending' };

/** What `cancelPayout` did: `canceled`, or found the payout `executed` on-chain (and recorded it). */
export type PayoutCancel = { outcome: 'canceled' | 'executed'; status: PayoutStatus };

/** JSON-safe copy of typed data (bigints as decimal strings). */
const jsonSafe = (v: unknown): unknown =>
  JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)));

/** The payout's Safe transaction at `nonce`. Pure. */
function buildSafeTx(payout: PayoutRow, firm: FirmRow, instance: Address, nonce: bigint): PayoutSafeTx {
  const data = payoutCall(idBytes32(payout.id), payout.toAddress as Address, usdToUnits(payout.amountUsd));
  const safe = firm.ownerAddress as Address;
  const built = safeTxTypedData({ safe, chainId: firm.chainId, to: instance, data, nonce });
  return {
    safe,
    chainId: firm.chainId,
    to: instance,
    data,
    nonce: nonce.toString(),
    typedData: jsonSafe(built.typedData),
    safeTxHash: built.hash,
  };
}

const statusOf = (p: PayoutRow, safeTx: PayoutSafeTx | null): PayoutStatus => ({
  payoutId: p.id,
  status: p.status as PayoutStatus['status'],
  safeTx,
  safeTxHash: p.safeTxHash ?? null,
  signers: p.signers ?? [],
  executedTxHash: p.executedTxHash ?? null,
  safeNonce: p.safeNonce ?? null,
  ...(p.cancelReason ? { cancelReason: p.cancelReason } : {}),
});

const refusal = (type: string, message: string) => ApplicationFailure.create({ type, message, nonRetryable: true });

export function payoutActivities(deps: PropDeps) {
  const load = async (tenantId: string, payoutId: string) => {
    const em = scoped(deps.orm, tenantId);
    const payout = await em.findOneOrFail(Payout, { id: payoutId });
    const firm = await em.findOneOrFail(Firm, { id: payout.firmId });
    if (!firm.instanceAddress) throw refusal('invalid_state', `firm ${firm.id} is not deployed`);
    return { em, payout, firm, instance: firm.instanceAddress as Address };
  };

  /**
   * Records the payout `executed` if the instance paid it: the payout row, the ledger `payout` (ref
   * `payout:<payoutId>`, once) and the prop account's `paidOutUsd`, in one transaction holding the row's lock.
   * Answers the status, `unlogged` when the instance marks it paid but its `PayoutExecuted` log cannot be read
   * (nothing recorded; never to be rebuilt), or null when it is unpaid.
   */
  const recordExecution = async (
    tenantId: string,
    payoutId: string,
    instance: Address,
  ): Promise<PayoutStatus | 'unlogged' | null> => {
    const rpcUrl = rpcOf(deps.chain);
    const found = await findPayoutExecution(rpcUrl, instance, idBytes32(payoutId));
    if (!found) return (await readPayoutExecuted(rpcUrl, instance, idBytes32(payoutId))) ? 'unlogged' : null;
    return scoped(deps.orm, tenantId).transactional(async (em) => {
      const p = await em.findOneOrFail(Payout, { id: payoutId }, { lockMode: 4 /* PESSIMISTIC_WRITE */ });
      if (p.status !== 'executed') {
        Object.assign(p, { status: 'executed', executedTxHash: found.txHash, executedAt: new Date() });
        em.create(PropLedgerEntry, {
          id: `pl_payout_${payoutId.replace(/^po_/, '')}`,
          tenantId,
          firmId: p.firmId,
          propAccountId: p.propAccountId,
          kind: 'payout',
          amountUsd: p.amountUsd,
          txHash: found.txHash,
          ref: `payout:${payoutId}`,
        });
        const pa = await em.findOneOrFail(PropAccount, { id: p.propAccountId });
        pa.paidOutUsd = fmt(new Decimal(pa.paidOutUsd).add(p.amountUsd));
      }
      return statusOf(p, null);
    });
  };

  return {
    /** Builds the multisig transaction of the payout at the multisig's current nonce and stores its hash and nonce. */
    async preparePayout(tenantId: string, payoutId: string): Promise<PayoutSafeTx> {
      const { em, payout, firm, instance } = await load(tenantId, payoutId);
      const safeTx = buildSafeTx(
        payout,
        firm,
        instance,
        await readSafeNonce(rpcOf(deps.chain), firm.ownerAddress as Address),
      );
      Object.assign(payout, { safeTxHash: safeTx.safeTxHash, safeNonce: safeTx.nonce });
      await em.flush();
      return safeTx;
    },

    /**
     * Verifies the owners' signatures of the payout's multisig transaction on-chain (owners,
     * threshold, nonce) and records the payout `authorized`. `superseded`: the Safe nonces of the
     * payout's earlier builds (decimal strings), to name a set made for one of them.
     * @throws ApplicationFailure (non-retryable) `payout_authorization_stale` when the Safe has moved past
     *   `safeTx`'s nonce (message `the Safe is at nonce M, past nonce N this payout was built for`) or the
     *   signatures are owners' of an earlier build (`signed for Safe nonce K`); `payout_authorization_invalid`
     *   with the reason otherwise.
     */
    async authorizePayout(
      tenantId: string,
      payoutId: string,
      safeTx: PayoutSafeTx,
      signatures: Hex,
      superseded: string[] = [],
    ): Promise<PayoutStatus> {
      const { em, payout } = await load(tenantId, payoutId);
      const rpcUrl = rpcOf(deps.chain);
      const call = { safe: safeTx.safe, chainId: safeTx.chainId, to: safeTx.to, data: safeTx.data };
      const verdict = await verifySafeAuthorization(rpcUrl, { ...call, nonce: BigInt(safeTx.nonce) }, signatures);
      if (!verdict.ok) {
        const { owners, nonce } = await readSafe(rpcUrl, safeTx.safe);
        if (nonce > BigInt(safeTx.nonce))
          throw refusal(
            'payout_authorization_stale',
            `the Safe is at nonce ${nonce}, past nonce ${safeTx.nonce} this payout was built for`,
          );
        const owned = new Set(owners.map((o) => o.toLowerCase()));
        for (const earlier of [...superseded].reverse()) {
          const signers = await recoverSafeTxSigners({ ...call, nonce: BigInt(earlier) }, signatures);
          if (signers.some((s) => s && owned.has(s.toLowerCase())))
            throw refusal('payout_authorization_stale', `signed for Safe nonce ${earlier}`);
        }
        throw refusal('payout_authorization_invalid', verdict.reason);
      }
      if (payout.status === 'requested')
        Object.assign(payout, { status: 'authorized', signatures, signers: verdict.signers, authorizedAt: new Date() });
      await em.flush();
      return statusOf(payout, safeTx);
    },

    /**
     * Records the payout `executed` once the owner executed it on-chain (see `followPayoutSafe`).
     * Returns the status (`authorized` while not yet executed). Used by runs from before the payout
     * followed the Safe.
     */
    async checkPayoutExecution(tenantId: string, payoutId: string): Promise<PayoutStatus> {
      const { payout, instance } = await load(tenantId, payoutId);
      if (payout.status === 'executed') return statusOf(payout, null);
      const recorded = await recordExecution(tenantId, payoutId, instance);
      return typeof recorded === 'object' && recorded ? recorded : statusOf(payout, null);
    },

    /**
     * One look at the Safe for a `requested` or `authorized` payout built for Safe nonce `builtNonce` (decimal
     * string). Reads the Safe's nonce, then whether the instance paid the payout: paid → recorded (once) and
     * `executed`; unpaid and the Safe past `builtNonce` → the transaction at `builtNonce` can never execute, so
     * it is rebuilt at the Safe's nonce, its hash and nonce stored and the row back to `requested` with its
     * signatures cleared → `rebuilt`; else `pending`. A payout the instance marks paid is never rebuilt.
     */
    async followPayoutSafe(tenantId: string, payoutId: string, builtNonce: string): Promise<PayoutFollow> {
      const { payout, firm, instance } = await load(tenantId, payoutId);
      if (payout.status === 'executed') return { kind: 'executed', status: statusOf(payout, null) };
      const safeNonce = await readSafeNonce(rpcOf(deps.chain), firm.ownerAddress as Address);
      const recorded = await recordExecution(tenantId, payoutId, instance);
      if (recorded === 'unlogged') return { kind: 'pending' };
      if (recorded) return { kind: 'executed', status: recorded };
      if (safeNonce <= BigInt(builtNonce)) return { kind: 'pending' };
      return scoped(deps.orm, tenantId).transactional(async (em) => {
        const p = await em.findOneOrFail(Payout, { id: payoutId }, { lockMode: 4 /* PESSIMISTIC_WRITE */ });
        if (p.status !== 'requested' && p.status !== 'authorized') return { kind: 'pending' };
        const safeTx = buildSafeTx(p, firm, instance, safeNonce);
        Object.assign(p, {
          status: 'requested',
          safeTxHash: safeTx.safeTxHash,
          safeNonce: safeTx.nonce,
          signatures: null,
          signers: null,
          authorizedAt: null,
        });
        return { kind: 'rebuilt', safeTx };
      });
    },

    /**
     * Cancels a `requested` or `authorized` payout built for Safe nonce `builtNonce` (decimal string), with the
     * operator's `reason`: the row `canceled` with `cancelReason` and `canceledAt`, so it leaves the payout
     * ceiling. Reads the chain first: a payout the instance paid is recorded instead (`executed`). Cancelling
     * again answers `canceled`.
     * @throws ApplicationFailure (non-retryable) `payout_cancel_unsafe` when it is `authorized` and the Safe is
     *   still at `builtNonce` (the signed transaction could still be executed); `payout_already_executed` when
     *   the instance marks it paid but its log cannot be read yet; `invalid_state` when it is `rejected`.
     */
    async cancelPayout(tenantId: string, payoutId: string, builtNonce: string, reason: string): Promise<PayoutCancel> {
      const { payout, firm, instance } = await load(tenantId, payoutId);
      if (payout.status === 'executed' || payout.status === 'canceled')
        return { outcome: payout.status, status: statusOf(payout, null) };
      const safeNonce = await readSafeNonce(rpcOf(deps.chain), firm.ownerAddress as Address);
      const recorded = await recordExecution(tenantId, payoutId, instance);
      if (recorded === 'unlogged')
        throw refusal('payout_already_executed', `payout ${payoutId} was executed on-chain; its record follows`);
      if (recorded) return { outcome: 'executed', status: recorded };
      return scoped(deps.orm, tenantId).transactional(async (em): Promise<PayoutCancel> => {
        const p = await em.findOneOrFail(Payout, { id: payoutId }, { lockMode: 4 /* PESSIMISTIC_WRITE */ });
        if (p.status === 'executed' || p.status === 'canceled') return { outcome: p.status, status: statusOf(p, null) };
        if (p.status !== 'requested' && p.status !== 'authorized')
          throw refusal('invalid_state', `payout ${payoutId} is ${p.status}`);
        if (p.status === 'authorized' && safeNonce <= BigInt(builtNonce))
          throw refusal(
            'payout_cancel_unsafe',
            `payout ${payoutId} is authorized and its signed Safe transaction (nonce ${builtNonce}) can still be ` +
              `executed: have the owners execute another Safe transaction at nonce ${builtNonce} to void it, then cancel`,
          );
        Object.assign(p, { status: 'canceled', cancelReason: reason, canceledAt: new Date() });
        return { outcome: 'canceled', status: statusOf(p, null) };
      });
    },
  };
}
