/**
 * Signing a payout's Safe transaction with owner keys, for `npm run payout:sign` (scripts/payout-sign.ts)
 * on the dev chain. The payout view (`GET /api/v1/firms/{id}/payouts/{payoutId}`, docs/api.md §4.8) presents
 * `safeTx` — `{ safe, chainId, to, data, nonce, typedData, safeTxHash }` — and the platform verifies the
 * signatures against exactly those fields (modules/prop/chain/safe.ts `verifySafeAuthorization`, as the
 * Safe's `checkNSignatures` will): so {@link presentedSafeTx} rebuilds the EIP-712 `SafeTx` from what is
 * presented and refuses to sign when the typed data, the fields and the hashes disagree, and
 * {@link signSafeTxAsOwners} signs it with `eth_signTypedData_v4` semantics (65-byte `r ‖ s ‖ v`, v 27/28)
 * and concatenates the signatures in ascending owner-address order, as the Safe requires.
 */
import { isAddressEqual, zeroAddress, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { packSignatures, safeTxTypedData, signSafeTx, type SafeTxTypedData } from '../../modules/prop/chain/index.js';
import { safeCallOf, type SafeCall } from '../../modules/prop/chain/safe.js';

/** The fields of a payout view (docs/api.md §4.8 `Payout`) read here; `safeTx` is absent until the workflow built it. */
export interface PresentedPayout {
  payoutId: string;
  status: string;
  /** The hash the owners sign (the Safe's `getTransactionHash`), or null before it was built. */
  safeTxHash: string | null;
  safeTx?: {
    safe?: string;
    chainId?: number;
    to?: string;
    data?: string;
    /** Decimal string. */
    nonce?: string;
    /** EIP-712 typed data, numbers as decimal strings. */
    typedData?: unknown;
    safeTxHash?: string;
  } | null;
}

/**
 * The Safe transaction a payout view presents to sign: the plain call (Safe, chain id, target,
 * calldata, Safe nonce), its EIP-712 typed data and hash, rebuilt from `safeTx.typedData` (or from
 * `safeTx`'s fields when the typed data is absent). Pure.
 * @throws Error when nothing is presented yet (`safeTx` absent), when the typed data is not a plain
 *   SafeTx call (safe.ts `safeCallOf`), or when the rebuilt hash or call differs from any presented
 *   `safeTxHash` or `safeTx` field — the signer then signs nothing rather than a transaction the
 *   platform would not verify.
 */
export function presentedSafeTx(view: PresentedPayout): { call: SafeCall; typedData: SafeTxTypedData; hash: Hex } {
  const tx = view.safeTx;
  if (!tx) throw new Error(`payout ${view.payoutId} (${view.status}) presents no Safe transaction to sign yet`);
  const parsed = safeCallOf(
    tx.typedData ?? {
      domain: { chainId: tx.chainId, verifyingContract: tx.safe },
      primaryType: 'SafeTx',
      // The fields alone: a plain call (value, operation, gas and refund all 0), as the platform builds it.
      message: {
        to: tx.to,
        value: '0',
        data: tx.data,
        operation: '0',
        safeTxGas: '0',
        baseGas: '0',
        gasPrice: '0',
        gasToken: zeroAddress,
        refundReceiver: zeroAddress,
        nonce: tx.nonce,
      },
    },
  );
  if (!parsed.ok) throw new Error(`payout ${view.payoutId}: ${parsed.reason}`);
  const { call } = parsed;
  const { typedData, hash } = safeTxTypedData(call);
  const mismatch = [
    tx.safe !== undefined && !isAddressEqual(tx.safe as Address, call.safe) && 'safe',
    tx.chainId !== undefined && Number(tx.chainId) !== call.chainId && 'chainId',
    tx.to !== undefined && !isAddressEqual(tx.to as Address, call.to) && 'to',
    tx.data !== undefined && tx.data.toLowerCase() !== call.data.toLowerCase() && 'data',
    tx.nonce !== undefined && String(tx.nonce) !== call.nonce.toString() && 'nonce',
    tx.safeTxHash !== undefined && tx.safeTxHash.toLowerCase() !== hash && 'safeTx.safeTxHash',
    view.safeTxHash !== null && view.safeTxHash.toLowerCase() !== hash && 'safeTxHash',
  ].filter(Boolean);
  if (mismatch.length)
    throw new Error(
      `payout ${view.payoutId}: safeTx.typedData (hash ${hash}) does not match the presented ${mismatch.join(', ')}; not signing`,
    );
  return { call, typedData, hash };
}

/**
 * Signs a Safe transaction with each of `ownerKeys` (EIP-712 `SafeTx`, what a wallet's
 * `eth_signTypedData_v4` returns: 65 bytes, v 27/28) and concatenates the signatures in ascending
 * signer-address order — the body of `POST …/payouts/{payoutId}/authorization` `{ signatures }` and the
 * `signatures` argument of the Safe's `execTransaction`. Give exactly as many keys as the Safe's
 * threshold (the Safe checks only the first `threshold` signatures). `signers` ascending.
 */
export async function signSafeTxAsOwners(
  typedData: SafeTxTypedData,
  ownerKeys: Hex[],
): Promise<{ signatures: Hex; signers: Address[] }> {
  const sigs = await Promise.all(
    ownerKeys.map(async (k) => ({ signer: privateKeyToAccount(k).address, signature: await signSafeTx(k, typedData) })),
  );
  return {
    signatures: packSignatures(sigs),
    signers: sigs.map((s) => s.signer).sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)),
  };
}
