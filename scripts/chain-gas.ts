/**
 * `npm run chain:gas`: gas used by each prop-firm operation on a fresh anvil (started here from the
 * npm package, stopped at the end): deploy the Safe singleton and factory (once per chain), create a
 * 2-of-3 Safe, deploy a PropInstance (what the platform deployer pays), a challenge deposit (with
 * its ERC-20 approve), collateral, and a payout executed through the Safe. Prints a table.
 */
import { erc20Abi, keccak256, toBytes } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { artifact, packSignatures, payoutCall, readSafeNonce, rulesHash, signSafeTx } from '../activities/chain/index.js';
import { deployContract, deployMultisig, deployStablecoin, executeSafeTx, mintStablecoin, rpc, sendCall, startAnvil } from './lib/local-chain.js';
import { freePort } from './lib/temporal-dev.js';

const anvil = await startAnvil({ port: await freePort() });
try {
  const rpcUrl = anvil.rpcUrl;
  const [deployer, funder, ...ownerKeys] = Array.from({ length: 5 }, () => generatePrivateKey());
  for (const k of [deployer, funder, ...ownerKeys]) await rpc(rpcUrl, 'anvil_setBalance', [privateKeyToAccount(k).address, '0x56bc75e2d63100000']);
  const owners = ownerKeys.map((k) => privateKeyToAccount(k).address);
  const stablecoin = await deployStablecoin(rpcUrl, funder);
  const rows: [string, bigint][] = [];
  await deployMultisig(rpcUrl, funder, { owners, threshold: 2, saltNonce: 1n }); // singleton + factory, once per chain
  const safe = await deployMultisig(rpcUrl, funder, { owners, threshold: 2, saltNonce: 2n });
  rows.push(['create a 2-of-3 Safe (proxy; singleton and factory already on chain)', safe.gasUsed]);
  const a = artifact('PropInstance');
  const instance = await deployContract(rpcUrl, deployer, a.abi, a.bytecode, [safe.address, stablecoin, keccak256(toBytes('firm_gas')), rulesHash({ firmId: 'firm_gas' })]);
  rows.push(['deploy PropInstance (platform deployer, gas only)', instance.gasUsed]);
  await mintStablecoin(rpcUrl, funder, stablecoin, privateKeyToAccount(funder).address, 10_000_000_000n);
  rows.push(['approve the stablecoin (payer, once)', (await sendCall(rpcUrl, funder, stablecoin, erc20Abi, 'approve', [instance.address, 10_000_000_000n])).gasUsed]);
  rows.push(['challenge deposit (first)', (await sendCall(rpcUrl, funder, instance.address, a.abi, 'deposit', [keccak256(toBytes('pa_1')), 100_000_000n])).gasUsed]);
  rows.push(['challenge deposit (later)', (await sendCall(rpcUrl, funder, instance.address, a.abi, 'deposit', [keccak256(toBytes('pa_2')), 100_000_000n])).gasUsed]);
  rows.push(['post collateral', (await sendCall(rpcUrl, funder, instance.address, a.abi, 'postCollateral', [5_000_000_000n])).gasUsed]);
  const call = { safe: safe.address, chainId: 31337, to: instance.address, data: payoutCall(keccak256(toBytes('po_1')), owners[0], 50_000_000n), nonce: await readSafeNonce(rpcUrl, safe.address) };
  const signatures = packSignatures(await Promise.all(ownerKeys.slice(0, 2).map(async (k) => ({ signer: privateKeyToAccount(k).address, signature: await signSafeTx(k, call) }))));
  rows.push(['payout through the Safe (2 signatures, executed by an owner)', (await executeSafeTx(rpcUrl, ownerKeys[0], { safe: safe.address, to: instance.address, data: call.data, signatures })).gasUsed]);
  console.log('\nchain:gas — gas used per prop-firm operation (anvil, Safe v1.4.1, solc 0.8.28 optimizer 200 runs)');
  for (const [what, gas] of rows) console.log(`  ${gas.toLocaleString('en-US').padStart(9)}  ${what}`);
} finally {
  await anvil.stop();
}
