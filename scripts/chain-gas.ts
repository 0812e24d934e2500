/**
 * `npm run chain:gas`: gas used by each prop-firm operation, measured on a fresh anvil (started
 * here from the npm package, stopped at the end) through the same chain layer the activities use:
 * the Safe v1.4.1 singleton and factory (once per chain), a 2-of-3 Safe, a PropInstance deploy
 * (what the platform's gas-only deployer pays), a challenge deposit (and its ERC-20 approve),
 * collateral, and a payout executed through the Safe on two owners' signatures. Prints a table;
 * `--json` prints `{ operation: gasUsed }` instead.
 */
import { keccak256, toBytes } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  approveStablecoin,
  broadcastDeploy,
  deployMultisigWithReceipt,
  depositChallenge,
  deployStablecoin,
  ensureSafeInfra,
  executeSafeTx,
  mintStablecoin,
  packSignatures,
  payoutCall,
  postCollateral,
  propInstanceDeployData,
  readSafeNonce,
  rulesHash,
  safeTxTypedData,
  signSafeTx,
  waitForReceipt,
} from '../modules/prop/chain/index.js';
import { ANVIL_KEYS, startAnvil } from './lib/anvil.js';

const anvil = await startAnvil();
try {
  const rpcUrl = anvil.rpcUrl;
  const [funder, deployer, ...ownerKeys] = ANVIL_KEYS.slice(0, 5);
  const owners = ownerKeys.map((k) => privateKeyToAccount(k).address);
  const id = (s: string) => keccak256(toBytes(s));
  const rows: [string, bigint][] = [];
  const infra = await ensureSafeInfra(rpcUrl, funder);
  rows.push(
    ['Safe v1.4.1 singleton (once per chain)', infra.gasUsed.singleton],
    ['SafeProxyFactory (once per chain)', infra.gasUsed.factory],
  );
  const safe = await deployMultisigWithReceipt(rpcUrl, funder, { owners, threshold: 2 });
  rows.push(['create a 2-of-3 Safe (proxy + setup)', safe.gasUsed]);
  const stablecoin = await deployStablecoin(rpcUrl, funder);
  const { data } = propInstanceDeployData({
    owner: safe.address,
    stablecoin,
    firmId: id('firm_gas'),
    rulesHash: rulesHash({ firmId: 'firm_gas' }),
  });
  const deploy = await waitForReceipt(rpcUrl, await broadcastDeploy(rpcUrl, deployer, data, { nonce: 0 }), 1, {
    timeoutMs: 10_000,
  });
  if (deploy?.status !== 'success') throw new Error('PropInstance deploy failed');
  const instance = deploy.contractAddress!;
  rows.push(['deploy PropInstance (platform deployer, gas only)', deploy.gasUsed]);
  await mintStablecoin(rpcUrl, funder, stablecoin, privateKeyToAccount(funder).address, 10_000_000_000n);
  rows.push([
    'approve the stablecoin (payer, once)',
    (await approveStablecoin(rpcUrl, funder, stablecoin, instance, 10_000_000_000n)).gasUsed,
  ]);
  rows.push([
    'challenge deposit (first: totals slot 0 → n)',
    (await depositChallenge(rpcUrl, funder, instance, id('pa_1'), 100_000_000n)).gasUsed,
  ]);
  rows.push([
    'challenge deposit (later)',
    (await depositChallenge(rpcUrl, funder, instance, id('pa_2'), 100_000_000n)).gasUsed,
  ]);
  rows.push(['post collateral', (await postCollateral(rpcUrl, funder, instance, 5_000_000_000n)).gasUsed]);
  const { typedData } = safeTxTypedData({
    safe: safe.address,
    chainId: 31337,
    to: instance,
    data: payoutCall(id('po_1'), owners[0], 50_000_000n),
    nonce: await readSafeNonce(rpcUrl, safe.address),
  });
  const signatures = packSignatures(
    await Promise.all(
      ownerKeys
        .slice(0, 2)
        .map(async (k) => ({ signer: privateKeyToAccount(k).address, signature: await signSafeTx(k, typedData) })),
    ),
  );
  const payout = await waitForReceipt(
    rpcUrl,
    await executeSafeTx(rpcUrl, ownerKeys[0], {
      safe: safe.address,
      to: instance,
      data: typedData.message.data,
      signatures,
    }),
  );
  rows.push(['payout through the Safe (2 signatures, sent by an owner)', payout!.gasUsed]);
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(Object.fromEntries(rows.map(([k, v]) => [k, Number(v)])), null, 2));
  } else {
    console.log(
      '\nchain:gas — gas used per prop-firm operation (anvil 1.7.1, Safe v1.4.1, solc 0.8.28, optimizer 200 runs)',
    );
    for (const [what, gas] of rows) console.log(`  ${gas.toLocaleString('en-US').padStart(9)}  ${what}`);
  }
} finally {
  await anvil.stop();
}
