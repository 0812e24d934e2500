/**
 * PropInstance and the Safe checks on a real chain (anvil), without the platform around them
 * (issue 6; spec §1 custody rules): the deployer holds no privilege, only the owner multisig pays
 * out and each payout id once, deposits and collateral move real tokens, and the off-chain
 * authorisation check refuses exactly what the Safe itself refuses.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createPublicClient, encodeDeployData, erc20Abi, http, keccak256, toBytes, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { artifact, canonicalJson, packSignatures, payoutCall, propInstanceDeployData, readInstance, readSafeNonce, rulesHash, safeTxTypedData, signSafeTx, verifySafeAuthorization, type SafeCall } from '../../activities/chain/index.js';
import { deployContract, deployMultisig, deployStablecoin, executeSafeTx, mintStablecoin, rpc, sendCall } from '../../scripts/lib/local-chain.js';

describe('PropInstance on anvil', () => {
  const rpcUrl = inject('chainRpcUrl');
  const chain = createPublicClient({ transport: http(rpcUrl) });
  const keys = Array.from({ length: 5 }, () => generatePrivateKey());
  const [deployer, funder, ...ownerKeys] = keys;
  const owners = ownerKeys.map((k) => privateKeyToAccount(k).address);
  let stablecoin: Address;
  let safe: Address;
  let instance: Address;
  const abi = artifact('PropInstance').abi;
  const rules = { firmId: 'firm_x', templates: [{ id: 'tpl_1', priceUsd: '100', payoutSplitPct: '0.8' }] };

  beforeAll(async () => {
    for (const k of keys) await rpc(rpcUrl, 'anvil_setBalance', [privateKeyToAccount(k).address, '0x56bc75e2d63100000']);
    stablecoin = await deployStablecoin(rpcUrl, funder);
    safe = (await deployMultisig(rpcUrl, funder, { owners, threshold: 2 })).address;
    const { data } = propInstanceDeployData({ owner: safe, stablecoin, firmId: keccak256(toBytes('firm_x')), rulesHash: rulesHash(rules) });
    expect(data.startsWith(artifact('PropInstance').bytecode)).toBe(true);
    instance = (await deployContract(rpcUrl, deployer, abi, artifact('PropInstance').bytecode, [safe, stablecoin, keccak256(toBytes('firm_x')), rulesHash(rules)])).address;
    await mintStablecoin(rpcUrl, funder, stablecoin, privateKeyToAccount(funder).address, 1_000_000_000n);
    await sendCall(rpcUrl, funder, stablecoin, erc20Abi, 'approve', [instance, 1_000_000_000n]);
  });

  it('commits the canonical rules hash; the canonical form sorts keys and keeps decimal strings', async () => {
    expect(canonicalJson({ b: '0.10', a: [2, { d: 1, c: null }] })).toBe('{"a":[2,{"c":null,"d":1}],"b":"0.10"}');
    expect(rulesHash({ z: 1, a: '2' })).toBe(keccak256(toBytes('{"a":"2","z":1}')));
    expect((await readInstance(rpcUrl, instance)).rulesHash).toBe(rulesHash(rules));
  });

  it('pulls deposits and collateral into the instance and counts them', async () => {
    await sendCall(rpcUrl, funder, instance, abi, 'deposit', [keccak256(toBytes('pa_1')), 100_000_000n]);
    await sendCall(rpcUrl, funder, instance, abi, 'postCollateral', [500_000_000n]);
    expect(await readInstance(rpcUrl, instance)).toMatchObject({ owner: safe, totalDeposits: 100_000_000n, totalCollateral: 500_000_000n, totalPayouts: 0n, treasury: 600_000_000n });
  });

  it('gives the deployer no privilege: payout and setRulesHash revert for it', async () => {
    await expect(sendCall(rpcUrl, deployer, instance, abi, 'payout', [keccak256(toBytes('po_x')), owners[0], 1n])).rejects.toThrow();
    await expect(sendCall(rpcUrl, deployer, instance, abi, 'setRulesHash', [keccak256(toBytes('x'))])).rejects.toThrow();
  });

  it('verifies a payout authorisation as the Safe does, executes it once, and refuses it twice', async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const payoutId = keccak256(toBytes('po_1'));
    const call: SafeCall = { safe, chainId: await chain.getChainId(), to: instance, data: payoutCall(payoutId, to, 25_000_000n), nonce: await readSafeNonce(rpcUrl, safe) };
    const signed = async (ks: Hex[], c: SafeCall = call) => packSignatures(await Promise.all(ks.map(async (k) => ({ signer: privateKeyToAccount(k).address, signature: await signSafeTx(k, c) }))));
    const stranger = generatePrivateKey();

    expect(await verifySafeAuthorization(rpcUrl, call, await signed(ownerKeys.slice(0, 1)))).toMatchObject({ ok: false, reason: expect.stringContaining('needs 2') });
    expect(await verifySafeAuthorization(rpcUrl, call, await signed([ownerKeys[0], stranger]))).toMatchObject({ ok: false });
    const tampered = { ...call, data: payoutCall(payoutId, to, 999_000_000n) };
    expect(await verifySafeAuthorization(rpcUrl, call, await signed(ownerKeys.slice(0, 2), tampered))).toMatchObject({ ok: false, reason: expect.stringContaining('not by an owner') });
    const good = await signed(ownerKeys.slice(1, 3));
    const unsorted = `0x${good.slice(132)}${good.slice(2, 132)}` as Hex;
    expect(await verifySafeAuthorization(rpcUrl, call, unsorted)).toMatchObject({ ok: false, reason: expect.stringContaining('ascending') });
    const later = { ...call, nonce: call.nonce + 1n };
    expect(await verifySafeAuthorization(rpcUrl, later, await signed(ownerKeys.slice(1, 3), later))).toMatchObject({ ok: false, reason: expect.stringContaining('nonce') });
    // What the check refuses, the Safe refuses too.
    await expect(executeSafeTx(rpcUrl, funder, { safe, to: instance, data: call.data, signatures: unsorted })).rejects.toThrow();

    const verdict = await verifySafeAuthorization(rpcUrl, call, good);
    expect(verdict).toEqual({ ok: true, signers: [...owners.slice(1, 3)].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)) });
    expect(safeTxTypedData(call).hash).toMatch(/^0x[0-9a-f]{64}$/);
    await executeSafeTx(rpcUrl, funder, { safe, to: instance, data: call.data, signatures: good });
    expect(await chain.readContract({ address: stablecoin, abi: erc20Abi, functionName: 'balanceOf', args: [to] })).toBe(25_000_000n);
    expect(await readInstance(rpcUrl, instance)).toMatchObject({ totalPayouts: 25_000_000n, treasury: 575_000_000n });

    // The same payout id again, properly signed at the next nonce: the instance refuses it.
    const again: SafeCall = { ...call, nonce: await readSafeNonce(rpcUrl, safe) };
    await expect(executeSafeTx(rpcUrl, funder, { safe, to: instance, data: again.data, signatures: await signed(ownerKeys.slice(1, 3), again) })).rejects.toThrow();
    expect((await readInstance(rpcUrl, instance)).totalPayouts).toBe(25_000_000n);
  });

  it('refuses a zero owner at construction', async () => {
    const data = encodeDeployData({ abi, bytecode: artifact('PropInstance').bytecode, args: ['0x0000000000000000000000000000000000000000', stablecoin, keccak256(toBytes('f')), rulesHash({})] });
    await expect(chain.call({ account: privateKeyToAccount(deployer).address, data })).rejects.toThrow();
  });
});
