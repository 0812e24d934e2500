/**
 * PropInstance and its owner Safe on a real chain (anvil from global setup), through the chain
 * layer the activities use (activities/chain; issue 6, docs/api.md §1 custody rules): the deployer holds
 * no privilege, deposits and collateral move real tokens, only the owner multisig pays out and each
 * payout id once, the off-chain authorisation check refuses exactly what the Safe refuses, and a
 * re-sent deploy never makes a second contract.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { decodeEventLog, encodeDeployData, keccak256, toBytes, toFunctionSelector, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  approveStablecoin,
  artifact,
  broadcastDeploy,
  canonicalJson,
  chainClients,
  deployMultisig,
  deployMultisigWithReceipt,
  depositChallenge,
  deployStablecoin,
  executeSafeTx,
  findPayoutExecution,
  mintStablecoin,
  NonceConflictError,
  packSignatures,
  payoutCall,
  postCollateral,
  predictInstanceAddress,
  propInstanceDeployData,
  readInstance,
  readPayoutExecuted,
  readSafe,
  readSafeNonce,
  readTreasury,
  rulesHash,
  SAFE_ABI,
  safeTxTypedData,
  sendContractCall,
  signSafeTx,
  stablecoinBalance,
  TxRevertedError,
  verifySafeAuthorization,
  waitForReceipt,
  type SafeTxTypedData,
} from '../../modules/prop/chain/index.js';
import { anvilRpc } from '../../scripts/lib/anvil.js';

const rpcUrl = inject('chainRpcUrl');
const addr = (k: Hex) => privateKeyToAccount(k).address;
const id32 = (s: string) => keccak256(toBytes(s));
const asc = (xs: Address[]) => [...xs].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));

describe('PropInstance and its owner Safe on anvil', () => {
  const keys = Array.from({ length: 6 }, () => generatePrivateKey());
  const [deployer, funder, stranger, ...ownerKeys] = keys;
  const owners = ownerKeys.map(addr);
  const abi = artifact('PropInstance').abi;
  const rules = {
    firmId: 'firm_x',
    templates: [{ id: 'tpl_1', priceUsd: '100', payoutSplitPct: '0.8', maxDrawdownPct: '0.10' }],
  };
  let chainId: number;
  let stablecoin: Address;
  let safe: Address;
  let instance: Address;
  let deployHash: Hex;

  beforeAll(async () => {
    for (const k of keys) await anvilRpc(rpcUrl, 'anvil_setBalance', [addr(k), '0x56bc75e2d63100000']);
    chainId = (await chainClients(rpcUrl)).chainId;
    stablecoin = await deployStablecoin(rpcUrl, funder);
    safe = await deployMultisig(rpcUrl, funder, { owners, threshold: 2, salt: BigInt(Date.now()) });
    const { data } = propInstanceDeployData({
      owner: safe,
      stablecoin,
      firmId: id32('firm_x'),
      rulesHash: rulesHash(rules),
    });
    deployHash = await broadcastDeploy(rpcUrl, deployer, data, { nonce: 0 });
    await mintStablecoin(rpcUrl, funder, stablecoin, addr(funder), 1_000_000_000n);
  });

  it('deploys at the predicted address with the multisig as owner; the deployer key is the sender only', async () => {
    const receipt = await waitForReceipt(rpcUrl, deployHash, 1, { timeoutMs: 5_000 });
    expect(receipt).toMatchObject({ status: 'success', contractAddress: predictInstanceAddress(addr(deployer), 0) });
    instance = receipt!.contractAddress!;
    expect(await readInstance(rpcUrl, instance)).toEqual({
      owner: safe,
      stablecoin,
      firmId: id32('firm_x'),
      rulesHash: rulesHash(rules),
      totalDeposits: 0n,
      totalCollateral: 0n,
      totalPayouts: 0n,
      treasury: 0n,
    });
    expect(await readSafe(rpcUrl, safe)).toEqual({ owners, threshold: 2, nonce: 0n });
    // Deploying the same multisig again finds it instead of creating a second one.
    expect(await deployMultisigWithReceipt(rpcUrl, funder, { owners, threshold: 2, salt: 7n })).toMatchObject({
      txHash: expect.any(String),
    });
    expect(await deployMultisigWithReceipt(rpcUrl, funder, { owners, threshold: 2, salt: 7n })).toMatchObject({
      txHash: null,
      gasUsed: 0n,
    });
  });

  it('re-sending a deploy with the same nonce returns the first transaction and makes no second contract', async () => {
    const { data } = propInstanceDeployData({
      owner: safe,
      stablecoin,
      firmId: id32('firm_x'),
      rulesHash: rulesHash(rules),
    });
    // Already mined: the nonce is found used by this very deploy.
    expect(await broadcastDeploy(rpcUrl, deployer, data, { nonce: 0 })).toBe(deployHash);
    const { public: pub } = await chainClients(rpcUrl);
    expect(await pub.getTransactionCount({ address: addr(deployer) })).toBe(1);
    // Pending (automine off): the second send is the same transaction; the receipt is null, not an error.
    await anvilRpc(rpcUrl, 'evm_setAutomine', [false]);
    try {
      const { data: other } = propInstanceDeployData({
        owner: safe,
        stablecoin,
        firmId: id32('firm_y'),
        rulesHash: rulesHash(rules),
      });
      const fees = { maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };
      const first = await broadcastDeploy(rpcUrl, deployer, other, { nonce: 1, ...fees });
      expect(await broadcastDeploy(rpcUrl, deployer, other, { nonce: 1, ...fees })).toBe(first);
      expect(await broadcastDeploy(rpcUrl, deployer, other, { nonce: 1 })).toBe(first);
      expect(await waitForReceipt(rpcUrl, first)).toBeNull();
      await expect(broadcastDeploy(rpcUrl, deployer, data, { nonce: 1 })).rejects.toBeInstanceOf(NonceConflictError);
      await anvilRpc(rpcUrl, 'evm_mine');
      expect(await waitForReceipt(rpcUrl, first, 3)).toBeNull();
      await anvilRpc(rpcUrl, 'anvil_mine', ['0x2']);
      expect(await waitForReceipt(rpcUrl, first, 3)).toMatchObject({
        status: 'success',
        confirmations: 3,
        contractAddress: predictInstanceAddress(addr(deployer), 1),
      });
    } finally {
      await anvilRpc(rpcUrl, 'evm_setAutomine', [true]);
    }
    expect(await pub.getTransactionCount({ address: addr(deployer) })).toBe(2);
    expect(await pub.getCode({ address: predictInstanceAddress(addr(deployer), 2) })).toBeUndefined();
    expect(await waitForReceipt(rpcUrl, id32('no such transaction'))).toBeNull();
  });

  it('commits the canonical rules hash (keys sorted at every level, decimals as strings)', async () => {
    expect(canonicalJson({ b: '0.10', a: [2, { d: 1, c: null }] })).toBe('{"a":[2,{"c":null,"d":1}],"b":"0.10"}');
    expect(rulesHash({ z: 1, a: '2' })).toBe(keccak256(toBytes('{"a":"2","z":1}')));
    expect(rulesHash({ templates: rules.templates, firmId: 'firm_x' })).toBe(rulesHash(rules));
    expect((await readInstance(rpcUrl, instance)).rulesHash).toBe(rulesHash(rules));
  });

  it('pulls deposits and collateral into the instance, counts them and emits their events', async () => {
    await approveStablecoin(rpcUrl, funder, stablecoin, instance, 1_000_000_000n);
    const dep = await depositChallenge(rpcUrl, funder, instance, id32('pa_1'), 100_000_000n);
    const col = await postCollateral(rpcUrl, funder, instance, 500_000_000n);
    const { public: pub } = await chainClients(rpcUrl);
    const events = async (hash: Hex) =>
      (await pub.getTransactionReceipt({ hash })).logs
        .filter((l) => l.address.toLowerCase() === instance.toLowerCase())
        .map((l) => decodeEventLog({ abi, data: l.data, topics: l.topics }));
    expect(await events(dep.hash)).toEqual([
      {
        eventName: 'ChallengeDeposit',
        args: { propAccountId: id32('pa_1'), payer: addr(funder), amount: 100_000_000n },
      },
    ]);
    expect(await events(col.hash)).toEqual([
      { eventName: 'CollateralPosted', args: { from: addr(funder), amount: 500_000_000n } },
    ]);
    expect(await stablecoinBalance(rpcUrl, stablecoin, addr(funder))).toBe(400_000_000n);
    expect(await readInstance(rpcUrl, instance)).toMatchObject({
      totalDeposits: 100_000_000n,
      totalCollateral: 500_000_000n,
      totalPayouts: 0n,
      treasury: 600_000_000n,
    });
    await expect(depositChallenge(rpcUrl, stranger, instance, id32('pa_2'), 1n)).rejects.toThrow(
      toFunctionSelector('InsufficientAllowance()'),
    ); // the token's own error, re-thrown
    await expect(depositChallenge(rpcUrl, funder, instance, id32('pa_2'), 0n)).rejects.toThrow(/ZeroAmount/);
  });

  it('gives the deployer no privilege, and refuses an owner or stablecoin that is not a contract', async () => {
    const call = (fn: string, args: unknown[], gas?: bigint) =>
      sendContractCall(rpcUrl, deployer, { to: instance, abi, functionName: fn, args, gas });
    await expect(call('payout', [id32('po_x'), addr(deployer), 1n])).rejects.toThrow(/NotOwner/);
    await expect(call('payout', [id32('po_x'), addr(deployer), 1n], 200_000n)).rejects.toBeInstanceOf(TxRevertedError); // mined, reverted
    await expect(call('setRulesHash', [id32('x')])).rejects.toThrow(/NotOwner/);
    await expect(call('transferOwnership', [addr(deployer)])).rejects.toThrow(/NotOwner/);
    await expect(call('acceptOwnership', [])).rejects.toThrow(/NotOwner/);
    const { public: pub } = await chainClients(rpcUrl);
    for (const args of [
      [addr(deployer), stablecoin],
      [safe, addr(funder)],
      ['0x0000000000000000000000000000000000000000', stablecoin],
    ]) {
      const data = encodeDeployData({
        abi,
        bytecode: artifact('PropInstance').bytecode,
        args: [...args, id32('f'), rulesHash({})],
      });
      await expect(pub.call({ account: addr(deployer), data })).rejects.toThrow(
        new RegExp(`${toFunctionSelector('NotAContract(address)')}|${toFunctionSelector('ZeroAddress()')}`),
      );
    }
  });

  it('pays out only on two owners’ signatures; tampered, wrong-recipient, non-owner and single signatures fail off-chain and on-chain; a payout id pays once', async () => {
    const to = addr(generatePrivateKey());
    const payoutId = id32('po_1');
    const nonce = await readSafeNonce(rpcUrl, safe);
    const { typedData, hash } = safeTxTypedData({
      safe,
      chainId,
      to: instance,
      data: payoutCall(payoutId, to, 25_000_000n),
      nonce,
    });
    // Our EIP-712 hash is the Safe's own.
    const { public: pub } = await chainClients(rpcUrl);
    const m = typedData.message;
    expect(
      await pub.readContract({
        address: safe,
        abi: SAFE_ABI,
        functionName: 'getTransactionHash',
        args: [
          m.to,
          m.value,
          m.data,
          m.operation,
          m.safeTxGas,
          m.baseGas,
          m.gasPrice,
          m.gasToken,
          m.refundReceiver,
          m.nonce,
        ],
      }),
    ).toBe(hash);
    const sign = async (ks: Hex[], td: SafeTxTypedData = typedData) =>
      packSignatures(await Promise.all(ks.map(async (k) => ({ signer: addr(k), signature: await signSafeTx(k, td) }))));
    const verify = (signatures: Hex, td: SafeTxTypedData | object = typedData) =>
      verifySafeAuthorization({ rpcUrl, safe, typedData: td, signatures });
    const exec = (data: Hex, signatures: Hex, gas?: bigint) =>
      executeSafeTx(rpcUrl, stranger, { safe, to: instance, data, signatures, gas });
    const good = await sign(ownerKeys.slice(0, 2));

    const refused: [string, Hex, Hex, RegExp, RegExp][] = [];
    for (const [what, amount, recipient] of [
      ['tampered amount', 999_000_000n, to],
      ['wrong recipient', 25_000_000n, addr(stranger)],
    ] as const) {
      const data = payoutCall(payoutId, recipient, amount);
      refused.push([what, data, good, /not by an owner/, /GS026/]);
    }
    refused.push([
      'a non-owner co-signer',
      typedData.message.data,
      await sign([ownerKeys[0], stranger]),
      /not by an owner/,
      /GS026/,
    ]);
    refused.push([
      'a single owner',
      typedData.message.data,
      await sign([ownerKeys[1]]),
      /1 signature\(s\); the Safe needs 2/,
      /GS020/,
    ]);
    refused.push([
      'the same owner twice',
      typedData.message.data,
      `0x${good.slice(2, 132).repeat(2)}`,
      /ascending/,
      /GS026/,
    ]);
    for (const [what, data, signatures, offChain, onChain] of refused) {
      const td = { ...typedData, message: { ...typedData.message, data } };
      const verdict = await verify(signatures, td);
      expect(verdict, what).toMatchObject({ ok: false, reason: expect.stringMatching(offChain) });
      await expect(exec(data, signatures), what).rejects.toThrow(onChain);
    }
    await expect(exec(payoutCall(payoutId, to, 999_000_000n), good, 300_000n)).rejects.toBeInstanceOf(TxRevertedError); // mined, reverted
    expect(await verify(good, { ...typedData, message: { ...typedData.message, operation: 1 } })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/plain calls/),
    });
    expect(await verify(good, { ...typedData, domain: { ...typedData.domain, chainId: chainId + 1 } })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/chain/),
    });
    expect(await readPayoutExecuted(rpcUrl, instance, payoutId)).toBe(false);
    expect(await findPayoutExecution(rpcUrl, instance, payoutId)).toBeNull();

    // The real authorisation, also in its JSON form (numbers as strings, as the payout workflow stores it).
    const json = JSON.parse(JSON.stringify(typedData, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
    expect(await verify(good, json)).toEqual({ ok: true, signers: asc(owners.slice(0, 2)) });
    expect(await verify(good)).toEqual({ ok: true, signers: asc(owners.slice(0, 2)) });
    const treasury = await readTreasury(rpcUrl, instance);
    const txHash = await exec(typedData.message.data, good);
    expect(await stablecoinBalance(rpcUrl, stablecoin, to)).toBe(25_000_000n);
    expect(await readTreasury(rpcUrl, instance)).toBe(treasury - 25_000_000n);
    expect(await readInstance(rpcUrl, instance)).toMatchObject({ totalPayouts: 25_000_000n });
    expect(await readPayoutExecuted(rpcUrl, instance, payoutId)).toBe(true);
    expect(await findPayoutExecution(rpcUrl, instance, payoutId)).toMatchObject({ txHash, to, amount: 25_000_000n });
    // The used authorisation is stale now (the Safe's nonce moved on).
    expect(await verify(good)).toMatchObject({ ok: false, reason: expect.stringMatching(/nonce/) });

    // The same payout id again, properly signed at the next nonce: the Safe accepts the signatures, the instance refuses the payout.
    const again = safeTxTypedData({
      safe,
      chainId,
      to: instance,
      data: typedData.message.data,
      nonce: nonce + 1n,
    }).typedData;
    const sigs = await sign(ownerKeys.slice(1, 3), again);
    expect(await verify(sigs, again)).toMatchObject({ ok: true });
    await expect(exec(again.message.data, sigs)).rejects.toThrow(/GS013/);
    expect(await stablecoinBalance(rpcUrl, stablecoin, to)).toBe(25_000_000n);
    expect((await readInstance(rpcUrl, instance)).totalPayouts).toBe(25_000_000n);
  });

  afterAll(async () => {
    await anvilRpc(rpcUrl, 'evm_setAutomine', [true]).catch(() => undefined);
  });
});
