/**
 * scripts/lib/anvil.ts: anvil from the npm package on a free port, answering at once, with
 * anvil's deterministic default accounts, and a chain that survives a restart with `statePath`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import { chainClients, deployStablecoin, readSafe, deployMultisig } from '../../modules/prop/chain/index.js';
import { ANVIL_KEYS, startAnvil } from '../../scripts/lib/anvil.js';

describe('anvil from the npm package', () => {
  let dir = '';
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('starts on a free port with the default funded accounts, and keeps its chain across a restart with statePath', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'anvil-state-'));
    const statePath = path.join(dir, 'state.json');
    expect(privateKeyToAccount(ANVIL_KEYS[0]).address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    const a = await startAnvil({ statePath });
    let stablecoin: `0x${string}`;
    let safe: `0x${string}`;
    const owners = ANVIL_KEYS.slice(1, 4).map((k) => privateKeyToAccount(k).address);
    try {
      const { public: pub, chainId } = await chainClients(a.rpcUrl);
      expect(chainId).toBe(31337);
      expect(await pub.getBalance({ address: privateKeyToAccount(ANVIL_KEYS[9]).address })).toBe(10_000n * 10n ** 18n);
      stablecoin = await deployStablecoin(a.rpcUrl, ANVIL_KEYS[0]);
      safe = await deployMultisig(a.rpcUrl, ANVIL_KEYS[0], { owners, threshold: 2 });
    } finally {
      await a.stop();
    }
    const b = await startAnvil({ statePath });
    try {
      const { public: pub } = await chainClients(b.rpcUrl);
      expect((await pub.getCode({ address: stablecoin }))?.length).toBeGreaterThan(2);
      expect(await readSafe(b.rpcUrl, safe)).toEqual({ owners, threshold: 2, nonce: 0n });
      // The Safe infrastructure and this multisig are found again, not created twice.
      expect(await deployMultisig(b.rpcUrl, ANVIL_KEYS[0], { owners, threshold: 2 })).toBe(safe);
    } finally {
      await b.stop();
      await b.stop();
    }
  });
});
