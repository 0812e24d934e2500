/**
 * `npm run payout:sign`'s signing (scripts/lib/safe-sign.ts; issue 21 item 3) against a real Safe v1.4.1 on
 * anvil: the owners' signatures it makes over a payout as the api presents it (`GET …/payouts/{payoutId}`,
 * built the way the payout workflow builds it) are accepted by the Safe's own `checkSignatures` and by
 * the platform's verifier, and `execTransaction` with them pays the trader; a presented transaction
 * whose typed data, fields and hash disagree is not signed at all.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { concatHex, keccak256, parseAbi, toBytes, zeroAddress, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  approveStablecoin,
  broadcastDeploy,
  chainClients,
  depositChallenge,
  deployMultisig,
  deployStablecoin,
  executeSafeTx,
  mintStablecoin,
  payoutCall,
  propInstanceDeployData,
  readPayoutExecuted,
  readSafeNonce,
  rulesHash,
  safeTxTypedData,
  signSafeTx,
  stablecoinBalance,
  verifySafeAuthorization,
  waitForReceipt,
} from '../../modules/prop/chain/index.js';
import type { SafeCall } from '../../modules/prop/chain/safe.js';
import { anvilRpc } from '../../scripts/lib/anvil.js';
import { presentedSafeTx, signSafeTxAsOwners, type PresentedPayout } from '../../scripts/lib/safe-sign.js';

const rpcUrl = inject('chainRpcUrl');
const addr = (k: Hex) => privateKeyToAccount(k).address;
const id32 = (s: string) => keccak256(toBytes(s));
/** The Safe's own checks (Safe v1.4.1): `checkSignatures` reverts (GS0xx) unless the signatures are valid. */
const SAFE_CHECKS = parseAbi([
  'function checkSignatures(bytes32 dataHash, bytes data, bytes signatures) view',
  'function getTransactionHash(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, uint256 _nonce) view returns (bytes32)',
  'function encodeTransactionData(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, uint256 _nonce) view returns (bytes)',
]);

/** The JSON typed data of a presented `safeTx`, the part these tests tamper with. */
type JsonTypedData = { message: Record<string, unknown> };

/** A payout view as `GET /api/v1/firms/{id}/payouts/{payoutId}` presents it (modules/prop/activities/payout.ts `preparePayout`: JSON, numbers as decimal strings). */
function presented(payoutId: string, call: SafeCall): PresentedPayout {
  const { typedData, hash } = safeTxTypedData(call);
  const safeTx = JSON.parse(
    JSON.stringify({ ...call, nonce: call.nonce.toString(), typedData, safeTxHash: hash }, (_k, v: unknown) =>
      typeof v === 'bigint' ? v.toString() : v,
    ),
  );
  return { payoutId, status: 'requested', safeTxHash: hash, safeTx };
}

describe('payout:sign signs what the Safe verifies', () => {
  const keys = Array.from({ length: 5 }, () => generatePrivateKey());
  const [deployer, funder, ...ownerKeys] = keys;
  // Descending owner address: the signer must sort, not rely on the order the keys come in.
  const descending = [...ownerKeys].sort((a, b) => (addr(a).toLowerCase() < addr(b).toLowerCase() ? 1 : -1));
  const recipient = addr(generatePrivateKey());
  let chainId: number;
  let stablecoin: Address;
  let safe: Address;
  let instance: Address;
  const payoutOf = async (payoutId: string, amount: bigint): Promise<SafeCall> => ({
    safe,
    chainId,
    to: instance,
    data: payoutCall(id32(payoutId), recipient, amount),
    nonce: await readSafeNonce(rpcUrl, safe),
  });
  const safeChecks = (call: SafeCall, hash: Hex, signatures: Hex) =>
    chainClients(rpcUrl).then(async ({ public: pub }) => {
      const args = [call.to, 0n, call.data, 0, 0n, 0n, 0n, zeroAddress, zeroAddress, call.nonce] as const;
      const encoded = await pub.readContract({
        address: safe,
        abi: SAFE_CHECKS,
        functionName: 'encodeTransactionData',
        args,
      });
      return pub.readContract({
        address: safe,
        abi: SAFE_CHECKS,
        functionName: 'checkSignatures',
        args: [hash, encoded, signatures],
      });
    });

  beforeAll(async () => {
    for (const k of keys) await anvilRpc(rpcUrl, 'anvil_setBalance', [addr(k), '0x56bc75e2d63100000']);
    chainId = (await chainClients(rpcUrl)).chainId;
    stablecoin = await deployStablecoin(rpcUrl, funder);
    safe = await deployMultisig(rpcUrl, funder, {
      owners: ownerKeys.map(addr),
      threshold: 2,
      salt: BigInt(Date.now()),
    });
    const { data } = propInstanceDeployData({
      owner: safe,
      stablecoin,
      firmId: id32('firm_sign'),
      rulesHash: rulesHash({ firmId: 'firm_sign' }),
    });
    // Anvil mines at once, but on a loaded machine the receipt may take a moment to be served: wait for it.
    const deployTx = await broadcastDeploy(rpcUrl, deployer, data, { nonce: 0 });
    instance = (await waitForReceipt(rpcUrl, deployTx, 1, { timeoutMs: 30_000 }))!.contractAddress!;
    await mintStablecoin(rpcUrl, funder, stablecoin, addr(funder), 1_000_000_000n);
    await approveStablecoin(rpcUrl, funder, stablecoin, instance, 1_000_000_000n);
    await depositChallenge(rpcUrl, funder, instance, id32('pa_sign'), 100_000_000n);
  });

  it("the owners' signatures of a presented payout pass the Safe's checkSignatures and the platform's verifier, and execTransaction with them pays out", async () => {
    const call = await payoutOf('po_sign_1', 40_000_000n);
    const view = presented('po_sign_1', call);
    const { call: toSign, typedData, hash } = presentedSafeTx(view);
    expect(toSign).toEqual(call);
    expect(
      await (
        await chainClients(rpcUrl)
      ).public.readContract({
        address: safe,
        abi: SAFE_CHECKS,
        functionName: 'getTransactionHash',
        args: [call.to, 0n, call.data, 0, 0n, 0n, 0n, zeroAddress, zeroAddress, call.nonce],
      }),
    ).toBe(hash); // the hash the script signs is the Safe's own

    const signed = await signSafeTxAsOwners(typedData, descending.slice(0, 2));
    const ascending = descending
      .slice(0, 2)
      .map(addr)
      .sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
    expect(signed.signers).toEqual(ascending);
    expect(signed.signatures).toMatch(/^0x[0-9a-f]{260}$/);
    await expect(safeChecks(call, hash, signed.signatures)).resolves.toBeUndefined();
    expect(await verifySafeAuthorization(rpcUrl, call, signed.signatures)).toEqual({ ok: true, signers: ascending });

    // The same two signatures unsorted: the Safe refuses them (GS026), so the sorting is what makes them valid.
    const unsorted = concatHex(await Promise.all(descending.slice(0, 2).map((k) => signSafeTx(k, typedData))));
    await expect(safeChecks(call, hash, unsorted)).rejects.toThrow(/GS026/);
    expect(await verifySafeAuthorization(rpcUrl, call, unsorted)).toMatchObject({ ok: false });

    // `--execute`: any account sends execTransaction with the signatures; the recipient is paid once.
    await executeSafeTx(rpcUrl, ownerKeys[0], { safe, to: call.to, data: call.data, signatures: signed.signatures });
    expect(await stablecoinBalance(rpcUrl, stablecoin, recipient)).toBe(40_000_000n);
    expect(await readPayoutExecuted(rpcUrl, instance, id32('po_sign_1'))).toBe(true);
    expect(await readSafeNonce(rpcUrl, safe)).toBe(call.nonce + 1n);
  });

  it('signs the transaction presented for the Safe’s new nonce; signatures of the one presented before are refused', async () => {
    const stale = await payoutOf('po_sign_2', 10_000_000n);
    stale.nonce -= 1n; // built before the Safe executed the first payout
    const oldView = presented('po_sign_2', stale);
    const rebuilt = presented('po_sign_2', await payoutOf('po_sign_2', 10_000_000n));
    expect(rebuilt.safeTxHash).not.toBe(oldView.safeTxHash);

    const old = await signSafeTxAsOwners(presentedSafeTx(oldView).typedData, ownerKeys.slice(1));
    const { call, typedData, hash } = presentedSafeTx(rebuilt);
    const fresh = await signSafeTxAsOwners(typedData, ownerKeys.slice(1));
    expect(hash).toBe(rebuilt.safeTxHash);
    expect(await verifySafeAuthorization(rpcUrl, call, old.signatures)).toMatchObject({ ok: false });
    await expect(safeChecks(call, hash, old.signatures)).rejects.toThrow(/GS026/);
    expect(await verifySafeAuthorization(rpcUrl, call, fresh.signatures)).toMatchObject({ ok: true });
    await expect(safeChecks(call, hash, fresh.signatures)).resolves.toBeUndefined();
  });

  it('signs nothing when the presented typed data, fields and hash disagree, or when nothing is presented yet', async () => {
    const call = await payoutOf('po_sign_3', 5_000_000n);
    const view = presented('po_sign_3', call);
    const more = payoutCall(id32('po_sign_3'), recipient, 90_000_000n);

    // The typed data asks for more than the fields and the hash the platform verifies.
    const tamperedTypedData = structuredClone(view);
    (tamperedTypedData.safeTx!.typedData as JsonTypedData).message.data = more;
    expect(() => presentedSafeTx(tamperedTypedData)).toThrow(
      /does not match the presented data, safeTx\.safeTxHash, safeTxHash;/,
    );
    // Another recipient contract in the fields only.
    expect(() => presentedSafeTx({ ...view, safeTx: { ...view.safeTx, to: recipient } })).toThrow(
      /does not match the presented to;/,
    );
    // A hash of another transaction.
    expect(() => presentedSafeTx({ ...view, safeTxHash: id32('other') })).toThrow(
      /does not match the presented safeTxHash;/,
    );
    // Not a plain call: a delegatecall through the Safe.
    const delegate = structuredClone(view);
    (delegate.safeTx!.typedData as JsonTypedData).message.operation = '1';
    expect(() => presentedSafeTx(delegate)).toThrow(/only plain calls/);
    // Not built yet.
    expect(() => presentedSafeTx({ payoutId: 'po_sign_3', status: 'requested', safeTxHash: null })).toThrow(
      /presents no Safe transaction/,
    );
    // Without typed data, the fields alone give the same transaction.
    const { typedData: _omitted, ...fields } = view.safeTx!;
    expect(presentedSafeTx({ ...view, safeTx: fields }).hash).toBe(view.safeTxHash);
  });
});
