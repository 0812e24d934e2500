/**
 * A prop firm through the operator API on the run's anvil (docs/api.md §4.8), for tests that need a firm
 * selling challenges without walking its whole lifecycle (test/prop/firm-lifecycle.test.ts does that):
 * a TestStablecoin and a 2-of-2 Safe owner deployed by a fresh funded key, the firm and its templates
 * created as a draft, then deployed by the stack's deployer and taken live.
 */
import { expect } from 'vitest';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { anvilRpc } from '../../scripts/lib/anvil.js';
import { deployMultisig, deployStablecoin } from '../../modules/prop/chain/index.js';
import type { Stack } from './stack.js';
import { waitFor } from './wait.js';

/** A fresh key holding 100 ETH on `rpcUrl` (no shared account: keys never collide across test files). */
export async function fundedKey(rpcUrl: string): Promise<Hex> {
  const key = generatePrivateKey();
  await anvilRpc(rpcUrl, 'anvil_setBalance', [privateKeyToAccount(key).address, '0x56bc75e2d63100000']);
  return key;
}

/** The stack settings a firm deploy needs: the chain, a funded deployer (gas only), a fast chain poll. */
export async function chainEnv(rpcUrl: string): Promise<Record<string, string>> {
  return { CHAIN_RPC_URL: rpcUrl, PROP_DEPLOYER_KEY: await fundedKey(rpcUrl), CHAIN_POLL_MS: '100' };
}

/**
 * A template's terms (prop-templates.schemas.ts `createTemplateBody` without `firmId`): $100 for a $10k
 * account, 6 % to pass, 3 % daily loss, 6 % drawdown, 4 trading days, 85 % of the profit to the trader.
 */
export const STARTER_TERMS = {
  name: 'Starter 10k',
  priceUsd: '100',
  accountSizeUsd: '10000',
  profitTargetPct: '0.06',
  maxDailyLossPct: '0.03',
  maxDrawdownPct: '0.06',
  minTradingDays: 4,
  payoutSplitPct: '0.85',
};

/**
 * A template's terms without `firmId` and `name`: $100 for a $10k account, 8 % to pass, 5 % daily loss,
 * 10 % drawdown, 1 trading day, 80 % of the profit to the trader.
 */
export const STANDARD_TERMS = {
  priceUsd: '100',
  accountSizeUsd: '10000',
  profitTargetPct: '0.08',
  maxDailyLossPct: '0.05',
  maxDrawdownPct: '0.1',
  minTradingDays: 1,
  payoutSplitPct: '0.8',
};

/** A firm created through the API, its template ids in the order given, and (once live) its chain addresses. */
export interface TestFirm {
  firmId: string;
  templateIds: string[];
  stablecoin: Address;
  safe: Address;
  /** The key that deployed the stablecoin (anyone may mint it). */
  funderKey: Hex;
  instance?: Address;
}

/**
 * Creates a draft firm with `templates` as the operator `token` (scopes `firm:operate`, `prop:manage`) of
 * the tenant `slug` (default the stack's). Fails the test on any refusal.
 */
export async function draftFirm(
  s: Stack,
  opts: { token: string; rpcUrl: string; name: string; templates: object[]; slug?: string },
): Promise<TestFirm> {
  const call = operatorCall(s, opts);
  const funderKey = await fundedKey(opts.rpcUrl);
  const stablecoin = await deployStablecoin(opts.rpcUrl, funderKey);
  const owners = [generatePrivateKey(), generatePrivateKey()].map((k) => privateKeyToAccount(k).address);
  const safe = await deployMultisig(opts.rpcUrl, funderKey, { owners, threshold: 2 });
  const chainId = Number(await anvilRpc<Hex>(opts.rpcUrl, 'eth_chainId'));
  const body = { name: opts.name, ownerAddress: safe, stablecoinAddress: stablecoin, chainId };
  const firm = await call('POST', '/api/v1/firms', body, 201);
  const templateIds: string[] = [];
  for (const t of opts.templates)
    templateIds.push((await call('POST', '/api/v1/prop-templates', { firmId: firm.id, ...t }, 201)).id);
  return { firmId: firm.id, templateIds, stablecoin, safe, funderKey };
}

/** Deploys a draft firm (`draftFirm`) with the stack's deployer and takes it live; sets its `instance`. */
export async function goLive(s: Stack, firm: TestFirm, opts: { token: string; slug?: string }): Promise<TestFirm> {
  const call = operatorCall(s, opts);
  await call('POST', `/api/v1/firms/${firm.firmId}/deploy`, {}, 202);
  const done = await waitFor(
    () => s.call('GET', `/api/v1/firms/${firm.firmId}/deployment`, { token: opts.token, headers: slugHeader(opts) }),
    (r) => r.body.step === 'deployed' || r.body.step === 'failed',
    30_000,
  );
  expect(done.body.step, JSON.stringify(done.body)).toBe('deployed');
  await call('POST', `/api/v1/firms/${firm.firmId}/live`, undefined, 200);
  return { ...firm, instance: done.body.instanceAddress };
}

const slugHeader = (opts: { slug?: string }): Record<string, string> =>
  opts.slug ? { 'x-tenant-slug': opts.slug } : {};

/** An operator call that expects `status` and answers the body. */
function operatorCall(s: Stack, opts: { token: string; slug?: string }) {
  return async (method: string, path: string, body: unknown, status: number) => {
    const res = await s.call(method, path, { token: opts.token, body, headers: slugHeader(opts) });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
    return res.body;
  };
}
