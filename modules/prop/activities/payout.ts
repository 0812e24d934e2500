/**
 * Activities of `payout-<payoutId>` (docs/api.md §1 custody rules, §3.5; modules/prop/workflows/payout.ts).
 *
 * The platform never moves a firm's funds: a payout is `PropInstance.payout(payoutId, to, amount)`,
 * callable only by the instance's owner, the operator's multisig. The platform prepares the
 * multisig transaction the owners sign (`preparePayout`), verifies their signatures against the
 * owners and threshold read on-chain (`authorizePayout`), and records the payout once the owner
 * executed it on-chain (`checkPayoutExecution`: the instance's `payoutExecuted(payoutId)` and its
 * `PayoutExecuted` event).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { Address, Hex } from 'viem';
import { Firm, Payout, PropAccount, PropLedgerEntry } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import { Decimal, fmt } from '../../../domain/decimal.js';
import { usdToUnits } from '../../../domain/prop/rules.js';
import {
  findPayoutExecution,
  payoutCall,
  readSafeNonce,
  safeTxTypedData,
  verifySafeAuthorization,
} from '../chain/index.js';
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

/** JSON-safe copy of typed data (bigints as decimal strings). */
const jsonSafe = (v: unknown): unknown =>
  JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)));

export function payoutActivities(deps: PropDeps) {
  const load = async (tenantId: string, payoutId: string) => {
    const em = scoped(deps.orm, tenantId);
    const payout = await em.findOneOrFail(Payout, { id: payoutId });
    const firm = await em.findOneOrFail(Firm, { id: payout.firmId });
    if (!firm.instanceAddress)
      throw ApplicationFailure.create({
        type: 'invalid_state',
        message: `firm ${firm.id} is not deployed`,
        nonRetryable: true,
      });
    return { em, payout, firm, instance: firm.instanceAddress as Address };
  };
  const statusOf = (
    p: {
      id: string;
      status: string;
      safeTxHash?: string | null;
      signers?: string[] | null;
      executedTxHash?: string | null;
    },
    safeTx: PayoutSafeTx | null,
  ): PayoutStatus => ({
    payoutId: p.id,
    status: p.status as PayoutStatus['status'],
    safeTx,
    safeTxHash: p.safeTxHash ?? null,
    signers: p.signers ?? [],
    executedTxHash: p.executedTxHash ?? null,
  });

  return {
    /** Builds the multisig transaction of the payout at the multisig's current nonce and stores its hash. */
    async preparePayout(tenantId: string, payoutId: string): Promise<PayoutSafeTx> {
      const { em, payout, firm, instance } = await load(tenantId, payoutId);
      const rpcUrl = rpcOf(deps.chain);
      const data = payoutCall(idBytes32(payoutId), payout.toAddress as Address, usdToUnits(payout.amountUsd));
      const nonce = await readSafeNonce(rpcUrl, firm.ownerAddress as Address);
      const built = safeTxTypedData({
        safe: firm.ownerAddress as Address,
        chainId: firm.chainId,
        to: instance,
        data,
        nonce,
      });
      payout.safeTxHash = built.hash;
      await em.flush();
      return {
        safe: firm.ownerAddress as Address,
        chainId: firm.chainId,
        to: instance,
        data,
        nonce: nonce.toString(),
        typedData: jsonSafe(built.typedData),
        safeTxHash: built.hash,
      };
    },

    /**
     * Verifies the owners' signatures of the payout's multisig transaction on-chain (owners,
     * threshold, nonce) and records the payout `authorized`.
     * @throws ApplicationFailure `payout_authorization_invalid` (non-retryable) with the reason.
     */
    async authorizePayout(
      tenantId: string,
      payoutId: string,
      safeTx: PayoutSafeTx,
      signatures: Hex,
    ): Promise<PayoutStatus> {
      const { em, payout } = await load(tenantId, payoutId);
      const verdict = await verifySafeAuthorization(
        rpcOf(deps.chain),
        { safe: safeTx.safe, chainId: safeTx.chainId, to: safeTx.to, data: safeTx.data, nonce: BigInt(safeTx.nonce) },
        signatures,
      );
      if (!verdict.ok)
        throw ApplicationFailure.create({
          type: 'payout_authorization_invalid',
          message: verdict.reason,
          nonRetryable: true,
        });
      if (payout.status === 'requested')
        Object.assign(payout, { status: 'authorized', signatures, signers: verdict.signers, authorizedAt: new Date() });
      await em.flush();
      return statusOf(payout, safeTx);
    },

    /**
     * Records the payout `executed` once the owner executed it on-chain: the payout row, the
     * ledger `payout` (ref `payout:<payoutId>`, once) and the prop account's `paidOutUsd`.
     * Returns the status (`authorized` while not yet executed).
     */
    async checkPayoutExecution(tenantId: string, payoutId: string): Promise<PayoutStatus> {
      const { payout, instance } = await load(tenantId, payoutId);
      if (payout.status === 'executed') return statusOf(payout, null);
      const found = await findPayoutExecution(rpcOf(deps.chain), instance, idBytes32(payoutId));
      if (!found) return statusOf(payout, null);
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
    },
  };
}
