/**
 * A firm deploy survives a worker restart and a chain-node restart mid-deploy without a second
 * deployment (issue 6; docs/api.md §4.8). Its own anvil (state kept in a file across the restart), with
 * automine switched off so the deploy transaction is still pending when both go down; the workflow
 * holds the signed transaction, re-sends it to the restarted node if the node lost it, and waits
 * for its confirmations. Exactly one transaction ever leaves the deployer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPublicClient, http, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { readInstance } from '../../modules/prop/chain/index.js';
import { anvilRpc as rpc, startAnvil, type Anvil } from '../../scripts/lib/anvil.js';
import { freePort } from '../../scripts/lib/temporal-dev.js';
import { startStack, type Stack } from '../support/stack.js';
import { draftFirm, STANDARD_TERMS } from '../support/prop-firm.js';
import { waitFor } from '../support/wait.js';

describe('firm deploy across restarts', () => {
  let dir: string;
  let port: number;
  let anvil: Anvil;
  let s: Stack;
  let rpcUrl: string;
  const deployerKey = generatePrivateKey();
  const fund = (key: Hex) => rpc(rpcUrl, 'anvil_setBalance', [privateKeyToAccount(key).address, '0x56bc75e2d63100000']);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'anvil-state-'));
    port = await freePort();
    anvil = await startAnvil({ port, statePath: path.join(dir, 'state.json') });
    rpcUrl = anvil.rpcUrl;
    await fund(deployerKey);
    s = await startStack({
      env: { CHAIN_RPC_URL: rpcUrl, PROP_DEPLOYER_KEY: deployerKey, CHAIN_CONFIRMATIONS: '3', CHAIN_POLL_MS: '100' },
    });
  });
  afterAll(async () => {
    await s?.stop();
    await anvil?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('resumes after the worker and the chain node restart, and deploys exactly once', async () => {
    const token = (await s.operator(['firm:operate', 'prop:manage'])).token;
    const { firmId, safe } = await draftFirm(s, {
      token,
      rpcUrl,
      name: 'Restart Capital',
      templates: [{ name: 'T', ...STANDARD_TERMS }],
    });

    await rpc(rpcUrl, 'evm_setAutomine', [false]);
    expect((await s.call('POST', `/api/v1/firms/${firmId}/deploy`, { token, body: {} })).status).toBe(202);
    const pending = await waitFor(
      () => s.call('GET', `/api/v1/firms/${firmId}/deployment`, { token }),
      (r) => r.body.step === 'confirming',
    );
    const txHash = pending.body.txHashes.deploy as Hex;
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);

    // Both go down while the deploy transaction is pending.
    await s.stopWorker();
    await anvil.stop();
    anvil = await startAnvil({ port, statePath: path.join(dir, 'state.json') });
    await s.startWorker();

    // The restarted node mines again; the workflow sees (or re-sends) the same transaction.
    const chain = createPublicClient({ transport: http(rpcUrl) });
    const deployer = privateKeyToAccount(deployerKey).address;
    await waitFor(
      () => chain.getTransactionReceipt({ hash: txHash }).catch(() => null),
      (r) => r !== null,
      20_000,
      100,
    );
    await rpc(rpcUrl, 'anvil_mine', ['0x2']);
    const done = await waitFor(
      () => s.call('GET', `/api/v1/firms/${firmId}/deployment`, { token }),
      (r) => r.body.step === 'deployed' || r.body.step === 'failed',
      20_000,
    );
    expect(done.body, JSON.stringify(done.body)).toMatchObject({
      step: 'deployed',
      txHashes: { deploy: txHash },
      nonce: 0,
    });
    expect(await chain.getTransactionCount({ address: deployer })).toBe(1); // one transaction, one contract
    expect((await readInstance(rpcUrl, done.body.instanceAddress)).owner.toLowerCase()).toBe(safe.toLowerCase());
  });
});
