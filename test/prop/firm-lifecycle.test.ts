/**
 * The on-chain prop firm end to end (issue 6; docs/api.md §1 custody rules, §3.5, §4.8, §4.9), on anvil,
 * through the API, the real workflows and real contracts: an operator creates a firm owned by a
 * 2-of-3 multisig, dry-runs and deploys it (the platform deployer pays gas only), goes live; two
 * traders buy challenges with on-chain deposits straight into the PropInstance; one passes (no
 * money moves, the payout ceiling is recorded), one breaches (terminal, flattened, refused at
 * compose, deposit forfeited); the operator posts collateral; the passed trader's payout is
 * refused with a tampered authorisation, authorised by two owners' signatures, executed on-chain
 * by an owner, and recorded; the public transparency page reconciles to the cent.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPublicClient, createWalletClient, erc20Abi, http, parseAbi, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Decimal } from '../../domain/decimal.js';
import { usdToUnits } from '../../domain/prop/rules.js';
import {
  deployMultisig,
  deployStablecoin,
  executeSafeTx,
  mintStablecoin,
  readInstance,
  signSafeTx,
} from '../../modules/prop/chain/index.js';
import { startStack, type Stack } from '../support/stack.js';
import { movedTick, publish, recordedTick } from '../support/marks.js';
import { btcMarketBuy, buyBtcFilled } from '../support/trading.js';
import { waitFor } from '../support/wait.js';
import { maybeSaveHistory } from '../support/histories.js';
import { challengeWorkflowId } from '../../modules/prop/workflows/challenge.definitions.js';
import { firmDeployWorkflowId } from '../../modules/prop/workflows/firm-deploy.definitions.js';
import { payoutWorkflowId } from '../../modules/prop/workflows/payout.definitions.js';

const INSTANCE_ABI = parseAbi([
  'function deposit(bytes32 propAccountId, uint256 amount)',
  'function postCollateral(uint256 amount)',
]);

/** A fresh key funded with 100 ETH on anvil (no shared account: test files run in parallel). */
async function fundedKey(rpcUrl: string): Promise<Hex> {
  const key = generatePrivateKey();
  await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'anvil_setBalance',
      params: [privateKeyToAccount(key).address, '0x56bc75e2d63100000'],
    }),
  });
  return key;
}

describe('prop firm lifecycle on anvil', () => {
  const rpcUrl = inject('chainRpcUrl');
  const chain = createPublicClient({ transport: http(rpcUrl) });
  let s: Stack;
  let deployerKey: Hex;
  let funderKey: Hex;
  let ownerKeys: Hex[];
  let stablecoin: Address;
  let safe: Address;
  let op: string;
  let firmId: string;
  let templateId: string;
  let instance: Address;

  const call = (method: string, path: string, body?: unknown, token = op) => s.call(method, path, { token, body });
  const send = async (key: Hex, to: Address, abi: readonly unknown[], functionName: string, args: unknown[]) => {
    const wallet = createWalletClient({
      account: privateKeyToAccount(key),
      transport: http(rpcUrl),
      chain: {
        id: await chain.getChainId(),
        name: 'anvil',
        nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 },
        rpcUrls: { default: { http: [rpcUrl] } },
      },
    });
    const hash = await wallet.writeContract({ address: to, abi: abi as never, functionName, args });
    const receipt = await chain.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    return receipt;
  };

  /** A trader who buys a challenge and pays its deposit on-chain; resolves once the challenge is active. */
  async function activeChallenge() {
    const t = await s.trader();
    const bought = await call('POST', '/api/v1/prop/challenges', { templateId }, t.token);
    expect(bought.status, JSON.stringify(bought.body)).toBe(201);
    expect(bought.body).toMatchObject({
      status: 'pending_payment',
      deposit: { instance, stablecoin, amountUsd: '100', amountUnits: '100000000' },
    });
    const payer = await fundedKey(rpcUrl);
    await mintStablecoin(rpcUrl, funderKey, stablecoin, privateKeyToAccount(payer).address, usdToUnits('100'));
    await send(payer, stablecoin, erc20Abi, 'approve', [instance, usdToUnits('100')]);
    await send(payer, instance, INSTANCE_ABI, 'deposit', [bought.body.deposit.propAccountRef, usdToUnits('100')]);
    const active = await waitFor(
      () => call('GET', `/api/v1/prop/challenges/${bought.body.propAccountId}`, undefined, t.token),
      (r) => r.body.status === 'active',
    );
    expect(active.body.depositTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    return { t, challenge: active.body as { propAccountId: string; accountId: string } };
  }

  beforeAll(async () => {
    [deployerKey, funderKey, ...ownerKeys] = await Promise.all(Array.from({ length: 5 }, () => fundedKey(rpcUrl)));
    stablecoin = await deployStablecoin(rpcUrl, funderKey);
    safe = await deployMultisig(rpcUrl, funderKey, {
      owners: ownerKeys.map((k) => privateKeyToAccount(k).address),
      threshold: 2,
    });
    s = await startStack({ env: { CHAIN_RPC_URL: rpcUrl, PROP_DEPLOYER_KEY: deployerKey, CHAIN_POLL_MS: '100' } });
    op = (await s.operator(['firm:operate', 'prop:manage'])).token;
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('creates a firm and a challenge template; a dry run answers the rules hash before any deployer check; an unready firm is refused', async () => {
    const firm = await call('POST', '/api/v1/firms', {
      name: 'Anvil Capital',
      ownerAddress: safe,
      stablecoinAddress: stablecoin,
      chainId: await chain.getChainId(),
    });
    expect(firm.status, JSON.stringify(firm.body)).toBe(201);
    firmId = firm.body.id;
    expect(await call('POST', `/api/v1/firms/${firmId}/deploy`, {})).toMatchObject({
      status: 409,
      body: { error: 'firm_not_ready' },
    }); // no template yet
    const template = await call('POST', '/api/v1/prop-templates', {
      firmId,
      name: 'Starter 10k',
      priceUsd: '100',
      accountSizeUsd: '10000',
      profitTargetPct: '0.01',
      maxDailyLossPct: '0.05',
      maxDrawdownPct: '0.08',
      minTradingDays: 1,
      payoutSplitPct: '0.8',
    });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    templateId = template.body.id;
    const dry = await call('POST', `/api/v1/firms/${firmId}/deploy`, { dryRun: true });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body).toMatchObject({ dryRun: true, ready: true, constructor: { owner: safe, stablecoin } });
    expect(dry.body.checks.map((c: { name: string }) => c.name)).not.toContain('deployer_configured');
    expect(dry.body.constructor.rulesHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await call('GET', `/api/v1/firms/${firmId}/proof`)).body).toMatchObject({
      reconciliation: { status: 'not_deployed' },
      solvency: 'not_deployed',
    });
  });

  it('deploys from the gas-only deployer, waits for the receipt, verifies the multisig owns the instance, goes live', async () => {
    const deployer = privateKeyToAccount(deployerKey).address;
    const started = await call('POST', `/api/v1/firms/${firmId}/deploy`, {});
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const done = await waitFor(
      () => call('GET', `/api/v1/firms/${firmId}/deployment`),
      (r) => r.body.step === 'deployed' || r.body.step === 'failed',
      30_000,
    );
    expect(done.body, JSON.stringify(done.body)).toMatchObject({ step: 'deployed', deployer, nonce: 0 });
    instance = done.body.instanceAddress;
    expect(await chain.getTransactionCount({ address: deployer })).toBe(1); // one deployment, nothing else
    const onChain = await readInstance(rpcUrl, instance);
    expect(onChain.owner.toLowerCase()).toBe(safe.toLowerCase());
    expect(onChain.rulesHash).toBe(done.body.rulesHash);
    expect((await call('GET', `/api/v1/firms/${firmId}`)).body).toMatchObject({
      status: 'deployed',
      instanceAddress: instance,
      deployTxHash: done.body.txHashes.deploy,
    });
    expect(await call('POST', `/api/v1/firms/${firmId}/pause`)).toMatchObject({
      status: 409,
      body: { error: 'invalid_state' },
    });
    // The rules are committed on-chain now: templates and addresses are frozen, a second deploy refused.
    expect(await call('PATCH', `/api/v1/prop-templates/${templateId}`, { minTradingDays: 0 })).toMatchObject({
      status: 409,
      body: { error: 'invalid_state' },
    });
    expect(await call('PATCH', `/api/v1/firms/${firmId}`, { ownerAddress: deployer })).toMatchObject({
      status: 409,
      body: { error: 'invalid_state' },
    });
    expect(await call('POST', `/api/v1/firms/${firmId}/deploy`, {})).toMatchObject({
      status: 409,
      body: { error: 'invalid_state' },
    });
    expect(await call('POST', `/api/v1/firms/${firmId}/live`)).toMatchObject({ status: 200, body: { step: 'live' } });
    expect((await call('GET', `/api/v1/firms/${firmId}`)).body.status).toBe('live');
    await maybeSaveHistory(s.temporal.workflow.getHandle(firmDeployWorkflowId(firmId)), 'firm-deploy-live');
  });

  let passed: Awaited<ReturnType<typeof activeChallenge>>;
  it('a challenge deposit goes straight to the instance; a profitable challenge passes and records the payout ceiling without moving money', async () => {
    const before = await readInstance(rpcUrl, instance);
    passed = await activeChallenge();
    expect((await readInstance(rpcUrl, instance)).treasury - before.treasury).toBe(usdToUnits('100'));
    const tick = await recordedTick('BTC.PAPER', 0.5);
    await publish(s.orm, tick);
    await buyBtcFilled(s, passed.t.token, passed.challenge.accountId, '0.1', 5);
    // The fill nudges the challenge's rule watch at once (docs/api.md §3.5 "on every fill"): an `evaluate` signal.
    const signals = async () => {
      const { events } = await s.temporal.workflow
        .getHandle(challengeWorkflowId(passed.challenge.propAccountId))
        .fetchHistory();
      return (events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'evaluate').length;
    };
    expect(await waitFor(signals, (n) => n >= 1, 10_000)).toBeGreaterThanOrEqual(1);
    await publish(s.orm, movedTick(tick, '1.03')); // +3 % on 0.1 BTC is well above the 1 % (100 USD) target.
    const done = await waitFor(
      () => call('GET', `/api/v1/prop/challenges/${passed.challenge.propAccountId}`, undefined, passed.t.token),
      (r) => r.body.status !== 'active',
      20_000,
    );
    expect(done.body.status).toBe('passed');
    expect(new Decimal(done.body.payoutCeilingUsd).gt(0)).toBe(true);
    expect((await readInstance(rpcUrl, instance)).treasury - before.treasury).toBe(usdToUnits('100')); // a pass moves no money
    await maybeSaveHistory(
      s.temporal.workflow.getHandle(challengeWorkflowId(passed.challenge.propAccountId)),
      'challenge-passed',
    );
  });

  it('a breach makes the challenge terminal, flattens its positions, refuses new orders and forfeits the deposit', async () => {
    const { t, challenge } = await activeChallenge();
    const tick = await recordedTick('BTC.PAPER', 0.5);
    await publish(s.orm, tick);
    await buyBtcFilled(s, t.token, challenge.accountId, '0.2', 10);
    await publish(s.orm, movedTick(tick, '0.95')); // −5 % on 0.2 BTC: far past the 500 USD daily loss
    const done = await waitFor(
      () => call('GET', `/api/v1/prop/challenges/${challenge.propAccountId}`, undefined, t.token),
      (r) => r.body.status !== 'active',
      20_000,
    );
    expect(done.body.status).toBe('breached');
    expect(done.body.breachReason).toMatch(/^max_daily_loss/);
    await waitFor(
      () => call('GET', `/api/v1/accounts/${challenge.accountId}/positions`, undefined, t.token),
      (r) => r.body.positions.length === 0,
      20_000,
    );
    expect(await call('POST', '/api/v1/oms/intents', btcMarketBuy(challenge.accountId, '0.01'), t.token)).toMatchObject(
      { status: 403, body: { error: 'account_suspended' } },
    );
    await maybeSaveHistory(
      s.temporal.workflow.getHandle(challengeWorkflowId(challenge.propAccountId)),
      'challenge-breached',
    );

    // The operator resets it: a new attempt, the balance back to the account size, orders accepted again.
    const reset = await call('POST', `/api/v1/prop-accounts/${challenge.propAccountId}/reset`);
    expect(reset.body, JSON.stringify(reset.body)).toMatchObject({
      status: 'active',
      attempt: 2,
      breachReason: null,
      startingBalanceUsd: '10000',
    });
    expect(
      (await call('GET', `/api/v1/accounts/${challenge.accountId}/state`, undefined, t.token)).body.perVenue[0]
        .balanceUsd,
    ).toBe('10000');
    await publish(s.orm, tick);
    expect((await call('POST', '/api/v1/oms/intents', btcMarketBuy(challenge.accountId, '0.01'), t.token)).status).toBe(
      201,
    );
    expect(await call('POST', `/api/v1/prop-accounts/${challenge.propAccountId}/promote`)).toMatchObject({
      status: 409,
      body: { error: 'invalid_state' },
    });
  });

  it('a payout is authorised only by a valid multisig signature set, executed on-chain by the owner, and recorded', async () => {
    // The operator backs the firm: collateral posted to the instance.
    await mintStablecoin(rpcUrl, funderKey, stablecoin, privateKeyToAccount(ownerKeys[0]).address, usdToUnits('5000'));
    await send(ownerKeys[0], stablecoin, erc20Abi, 'approve', [instance, usdToUnits('5000')]);
    await send(ownerKeys[0], instance, INSTANCE_ABI, 'postCollateral', [usdToUnits('5000')]);

    const ceiling = (
      await call('GET', `/api/v1/prop/challenges/${passed.challenge.propAccountId}`, undefined, passed.t.token)
    ).body.payoutCeilingUsd;
    const to = privateKeyToAccount(generatePrivateKey()).address;
    expect(
      await call(
        'POST',
        '/api/v1/prop/payouts',
        {
          propAccountId: passed.challenge.propAccountId,
          amountUsd: new Decimal(ceiling).add(1).toFixed(),
          toAddress: to,
        },
        passed.t.token,
      ),
    ).toMatchObject({ status: 400, body: { error: 'payout_exceeds_ceiling' } });
    const amount = '50';
    const req = await call(
      'POST',
      '/api/v1/prop/payouts',
      { propAccountId: passed.challenge.propAccountId, amountUsd: amount, toAddress: to },
      passed.t.token,
    );
    expect(req.status, JSON.stringify(req.body)).toBe(201);
    const payoutId = req.body.payoutId;
    const shown = await waitFor(
      () => call('GET', `/api/v1/firms/${firmId}/payouts/${payoutId}`),
      (r) => !!r.body.safeTx,
    );
    const { safeTx } = shown.body;

    // Tampered: the owners signed a different amount; and a single signature is below the threshold.
    const tamperedData = safeTx.data.replace(
      usdToUnits(amount).toString(16).padStart(64, '0'),
      usdToUnits('5000').toString(16).padStart(64, '0'),
    );
    expect(tamperedData).not.toBe(safeTx.data);
    const sign = async (keys: Hex[], data: Hex) =>
      sortedSignatures(
        await Promise.all(
          keys.map(async (k) => ({
            signer: privateKeyToAccount(k).address,
            sig: await signSafeTx(k, { ...safeTx, data, nonce: BigInt(safeTx.nonce) }),
          })),
        ),
      );
    expect(
      await call('POST', `/api/v1/firms/${firmId}/payouts/${payoutId}/authorization`, {
        signatures: await sign(ownerKeys.slice(0, 2), tamperedData),
      }),
    ).toMatchObject({ status: 400, body: { error: 'payout_authorization_invalid' } });
    expect(
      await call('POST', `/api/v1/firms/${firmId}/payouts/${payoutId}/authorization`, {
        signatures: await sign(ownerKeys.slice(0, 1), safeTx.data),
      }),
    ).toMatchObject({ status: 400, body: { error: 'payout_authorization_invalid' } });
    const signatures = await sign(ownerKeys.slice(1, 3), safeTx.data);
    const ok = await call('POST', `/api/v1/firms/${firmId}/payouts/${payoutId}/authorization`, { signatures });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.status).toBe('authorized');
    expect(
      await chain.readContract({ address: stablecoin, abi: erc20Abi, functionName: 'balanceOf', args: [to] }),
    ).toBe(0n); // authorising moves nothing

    // The owner (any owner, with the signatures) executes it on-chain; the platform records it.
    await executeSafeTx(rpcUrl, ownerKeys[0], { safe, to: safeTx.to, data: safeTx.data, signatures });
    const executed = await waitFor(
      () => call('GET', `/api/v1/prop/payouts/${payoutId}`, undefined, passed.t.token),
      (r) => r.body.status === 'executed',
      20_000,
    );
    expect(executed.body.executedTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(
      await chain.readContract({ address: stablecoin, abi: erc20Abi, functionName: 'balanceOf', args: [to] }),
    ).toBe(usdToUnits(amount));
    expect(
      (await call('GET', `/api/v1/prop/challenges/${passed.challenge.propAccountId}`, undefined, passed.t.token)).body
        .paidOutUsd,
    ).toBe(amount);
    expect((await call('POST', `/api/v1/prop-accounts/${passed.challenge.propAccountId}/promote`)).body).toMatchObject({
      status: 'funded',
      paidOutUsd: amount,
    });
    await maybeSaveHistory(s.temporal.workflow.getHandle(payoutWorkflowId(payoutId)), 'payout-executed');
  });

  it('the public transparency page reconciles the on-chain treasury with the ledger to the cent', async () => {
    const one = await s.call('GET', `/api/prop/transparency/${firmId}`);
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    // 2 deposits of 100 + 5,000 collateral − a 50 payout = 5,150 on-chain and in the ledger.
    expect(one.body).toMatchObject({
      firmId,
      name: 'Anvil Capital',
      addresses: { instance, owner: safe, stablecoin },
      ledger: { payInsUsd: '200', collateralUsd: '5000', payoutsUsd: '50', forfeitsUsd: '100' },
      onChain: { treasuryUsd: '5150', collateralUsd: '5000' },
      reconciliation: {
        status: 'reconciled',
        expectedTreasuryUsd: '5150',
        onChainTreasuryUsd: '5150',
        differenceUsd: '0',
      },
      solvency: 'solvent',
    });
    if (process.env.SAVE_HISTORIES) {
      const read = await waitFor(
        async () => {
          for await (const w of s.temporal.workflow.list({
            query: `WorkflowType = 'transparencyWorkflow' AND WorkflowId STARTS_WITH 'transparency-${firmId}-'`,
          }))
            return w;
          return null;
        },
        (w) => w !== null,
      );
      await maybeSaveHistory(s.temporal.workflow.getHandle(read!.workflowId), 'transparency-read');
    }
    const index = await s.call('GET', '/api/prop/transparency');
    expect(index.body.firms.map((f: { firmId: string }) => f.firmId)).toContain(firmId);
    expect((await s.call('GET', '/api/prop/transparency/firm_missing')).status).toBe(404);
    expect(await call('POST', `/api/v1/firms/${firmId}/pause`)).toMatchObject({
      status: 200,
      body: { step: 'paused' },
    });
    expect((await s.call('GET', `/api/prop/transparency/${firmId}`)).status).toBe(404); // paused: not live
  });

  it('refuses to deploy a firm whose owner is a plain key, not a multisig: the deploy fails with the reason and the firm stays draft', async () => {
    const eoa = privateKeyToAccount(generatePrivateKey()).address;
    const firm = (
      await call('POST', '/api/v1/firms', {
        name: 'EOA owned',
        ownerAddress: eoa,
        stablecoinAddress: stablecoin,
        chainId: await chain.getChainId(),
      })
    ).body;
    await call('POST', '/api/v1/prop-templates', {
      firmId: firm.id,
      name: 'T',
      priceUsd: '10',
      accountSizeUsd: '1000',
      profitTargetPct: '0.1',
      maxDailyLossPct: '0.05',
      maxDrawdownPct: '0.1',
      minTradingDays: 1,
      payoutSplitPct: '0.8',
    });
    expect((await call('POST', `/api/v1/firms/${firm.id}/deploy`, {})).status).toBe(202);
    const failed = await waitFor(
      () => call('GET', `/api/v1/firms/${firm.id}/deployment`),
      (r) => r.body.step === 'failed' || r.body.step === 'deployed',
      20_000,
    );
    expect(failed.body.error).toMatch(/not a contract/);
    expect((await call('GET', `/api/v1/firms/${firm.id}`)).body).toMatchObject({
      status: 'draft',
      instanceAddress: null,
    });
  });
});

/** Concatenates 65-byte signatures in ascending signer order (the multisig's convention). */
function sortedSignatures(sigs: { signer: string; sig: Hex }[]): Hex {
  return `0x${[...sigs]
    .sort((a, b) => (a.signer.toLowerCase() < b.signer.toLowerCase() ? -1 : 1))
    .map((x) => x.sig.slice(2))
    .join('')}`;
}
