/**
 * Payouts that follow a moving Safe, and the operator's cancel (issue 21 item 1; docs/api.md §1 custody rules,
 * §3.5, §4.8), on anvil with a real 2-of-3 Safe v1.4.1 owning the firm's PropInstance, through the API and the
 * real workflows: a Safe transaction is signed for one Safe nonce, so when the Safe executes another one at
 * that nonce — the first of two interleaved payouts, or an unrelated transaction of the owners — a pending
 * payout is rebuilt at the new nonce and shows the new hash to sign, and signatures of the old one are refused
 * as stale. The operator cancels a payout that is not paid, and it leaves the payout ceiling; a paid one
 * cannot be canceled, nor an authorized one whose signed transaction could still execute. A worker killed
 * between the Safe's execution and the record records the payment once.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Decimal } from '../../domain/decimal.js';
import { usdToUnits } from '../../domain/prop/rules.js';
import { PropLedgerEntry } from '../../db/entities.js';
import {
  approveStablecoin,
  depositChallenge,
  deployMultisig,
  deployStablecoin,
  executeSafeTx,
  mintStablecoin,
  packSignatures,
  postCollateral,
  readSafeNonce,
  signSafeTx,
  stablecoinBalance,
} from '../../modules/prop/chain/index.js';
import { payoutWorkflowId, type PayoutStatus } from '../../modules/prop/workflows/payout.definitions.js';
import { startStack, type Stack } from '../support/stack.js';
import { movedTick, publish, recordedTick } from '../support/marks.js';
import { buyBtcFilled } from '../support/trading.js';
import { waitFor } from '../support/wait.js';
import { maybeSaveHistory } from '../support/histories.js';
import { chainEnv, fundedKey, goLive, STARTER_TERMS } from '../support/prop-firm.js';
import { anvilRpc } from '../../scripts/lib/anvil.js';

/** A Safe transaction as the API presents it (`safeTx` of a payout). */
interface SafeTxView {
  safe: Address;
  chainId: number;
  to: Address;
  data: Hex;
  nonce: string;
  safeTxHash: Hex;
}

/** Longest wait for a payout's workflow to see the chain move: its reads back off to once a minute. */
const FOLLOW_MS = 70_000;

describe('payouts follow the Safe and the operator cancels them', () => {
  const rpcUrl = inject('chainRpcUrl');
  const addr = (k: Hex) => privateKeyToAccount(k).address;
  let s: Stack;
  let op: string;
  let ownerKeys: Hex[];
  let safe: Address;
  let stablecoin: Address;
  let firmId: string;
  let trader: { token: string };
  let propAccountId: string;
  let ceiling: Decimal;

  const call = (method: string, path: string, body?: unknown, token = op) => s.call(method, path, { token, body });
  const payoutPath = (id: string) => `/api/v1/firms/${firmId}/payouts/${id}`;
  const request = (amountUsd: string, toAddress: Address = addr(generatePrivateKey())) =>
    call('POST', '/api/v1/prop/payouts', { propAccountId, amountUsd, toAddress }, trader.token);
  /** Requests a payout that must be accepted; answers its id and recipient. */
  const requested = async (amountUsd: string) => {
    const to = addr(generatePrivateKey());
    const res = await request(amountUsd, to);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { id: res.body.payoutId as string, to };
  };
  /** The operator's view of a payout once its Safe transaction is built. */
  const shown = async (id: string) =>
    (
      await waitFor(
        () => call('GET', payoutPath(id)),
        (r) => !!r.body.safeTx,
      )
    ).body as {
      status: string;
      safeTx: SafeTxView;
      safeTxHash: Hex;
      safeNonce: string;
    };
  const authorize = (id: string, signatures: Hex) => call('POST', `${payoutPath(id)}/authorization`, { signatures });
  const cancel = (id: string, reason?: string) =>
    call('POST', `${payoutPath(id)}/cancel`, reason === undefined ? undefined : { reason });
  /** The owners' (`keys`) signatures of `tx`, packed in ascending signer order. */
  const sign = async (keys: Hex[], tx: Omit<SafeTxView, 'nonce' | 'safeTxHash'> & { nonce: string | bigint }) =>
    packSignatures(
      await Promise.all(
        keys.map(async (k) => ({
          signer: addr(k),
          signature: await signSafeTx(k, { ...tx, nonce: BigInt(tx.nonce) }),
        })),
      ),
    );
  /** Has two owners sign `tx` and the third execute it through the Safe. */
  const execute = async (tx: Omit<SafeTxView, 'safeTxHash'>) => {
    const signatures = await sign(ownerKeys.slice(0, 2), tx);
    await executeSafeTx(rpcUrl, ownerKeys[2], { safe, to: tx.to, data: tx.data, signatures });
  };
  const traderView = (id: string) => call('GET', `/api/v1/prop/payouts/${id}`, undefined, trader.token);
  const executed = (id: string, timeoutMs = 30_000) =>
    waitFor(
      () => traderView(id),
      (r) => r.body.status === 'executed',
      timeoutMs,
    );
  const paidOut = async () =>
    (await call('GET', `/api/v1/prop/challenges/${propAccountId}`, undefined, trader.token)).body.paidOutUsd as string;
  const received = (to: Address) => stablecoinBalance(rpcUrl, stablecoin, to);

  beforeAll(async () => {
    const funderKey = await fundedKey(rpcUrl);
    ownerKeys = await Promise.all([0, 1, 2].map(() => fundedKey(rpcUrl)));
    stablecoin = await deployStablecoin(rpcUrl, funderKey);
    safe = await deployMultisig(rpcUrl, funderKey, { owners: ownerKeys.map(addr), threshold: 2 });
    s = await startStack({ env: await chainEnv(rpcUrl) });
    op = (await s.operator(['firm:operate', 'prop:manage'])).token;
    const chainId = Number(await anvilRpc<Hex>(rpcUrl, 'eth_chainId'));
    const firm = await call('POST', '/api/v1/firms', {
      name: 'Safe Payouts',
      ownerAddress: safe,
      stablecoinAddress: stablecoin,
      chainId,
    });
    expect(firm.status, JSON.stringify(firm.body)).toBe(201);
    firmId = firm.body.id;
    // One profitable trade passes it: a 1 % target, one trading day.
    const terms = { ...STARTER_TERMS, profitTargetPct: '0.01', minTradingDays: 1 };
    const template = await call('POST', '/api/v1/prop-templates', { firmId, ...terms });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    const { instance } = await goLive(
      s,
      { firmId, templateIds: [template.body.id], stablecoin, safe, funderKey },
      { token: op },
    );
    // The operator backs the firm, so payouts have funds.
    await mintStablecoin(rpcUrl, funderKey, stablecoin, addr(ownerKeys[0]), usdToUnits('5000'));
    await approveStablecoin(rpcUrl, ownerKeys[0], stablecoin, instance!, usdToUnits('5000'));
    await postCollateral(rpcUrl, ownerKeys[0], instance!, usdToUnits('5000'));

    // A trader buys a challenge, pays the deposit on-chain and passes it with one profitable trade.
    trader = await s.trader();
    const bought = await call('POST', '/api/v1/prop/challenges', { templateId: template.body.id }, trader.token);
    expect(bought.status, JSON.stringify(bought.body)).toBe(201);
    propAccountId = bought.body.propAccountId;
    const payer = await fundedKey(rpcUrl);
    await mintStablecoin(rpcUrl, funderKey, stablecoin, addr(payer), usdToUnits('100'));
    await approveStablecoin(rpcUrl, payer, stablecoin, instance!, usdToUnits('100'));
    await depositChallenge(rpcUrl, payer, instance!, bought.body.deposit.propAccountRef, usdToUnits('100'));
    const challenge = `/api/v1/prop/challenges/${propAccountId}`;
    const active = await waitFor(
      () => call('GET', challenge, undefined, trader.token),
      (r) => r.body.status === 'active',
    );
    const tick = await recordedTick('BTC.PAPER', 0.5);
    await publish(s.orm, tick);
    await buyBtcFilled(s, trader.token, active.body.accountId, '0.1', 5);
    await publish(s.orm, movedTick(tick, '1.03')); // +3 % on 0.1 BTC: well above the 1 % target
    const passed = await waitFor(
      () => call('GET', challenge, undefined, trader.token),
      (r) => r.body.status !== 'active',
      20_000,
    );
    expect(passed.body.status).toBe('passed');
    ceiling = new Decimal(passed.body.payoutCeilingUsd);
    expect(ceiling.gte(50)).toBe(true);
  }, 180_000);
  afterAll(async () => {
    await s?.stop();
  });

  let first: { id: string; to: Address };
  it('two interleaved payouts: once the first executes, the second is rebuilt at the next nonce, its old signatures are refused as stale, and its new hash pays', async () => {
    first = await requested('10');
    const second = await requested('10');
    const a = await shown(first.id);
    const b = await shown(second.id);
    expect(b.safeNonce).toBe(a.safeNonce); // both built for the Safe's current nonce
    const n = BigInt(a.safeNonce);
    expect(a.safeTx.nonce).toBe(a.safeNonce);
    const oldSignatures = await sign(ownerKeys.slice(1, 3), b.safeTx);

    const signatures = await sign(ownerKeys.slice(0, 2), a.safeTx);
    expect((await authorize(first.id, signatures)).body.status).toBe('authorized');
    await executeSafeTx(rpcUrl, ownerKeys[2], { safe, to: a.safeTx.to, data: a.safeTx.data, signatures });
    await executed(first.id);
    expect(await readSafeNonce(rpcUrl, safe)).toBe(n + 1n);

    // The second's signatures are for nonce n, which the first used: refused, naming what to sign now.
    const stale = await authorize(second.id, oldSignatures);
    expect(stale.status, JSON.stringify(stale.body)).toBe(409);
    expect(stale.body.error).toBe('payout_authorization_stale');
    expect(stale.body.detail).toMatch(
      new RegExp(`nonce ${n}\\b.*; the payout was rebuilt for Safe nonce ${n + 1n}: sign safeTxHash 0x[0-9a-f]{64}$`),
    );
    const rebuilt = await shown(second.id);
    expect(rebuilt).toMatchObject({ status: 'requested', safeNonce: String(n + 1n), signers: [] });
    expect(rebuilt.safeTx.nonce).toBe(String(n + 1n));
    expect(rebuilt.safeTxHash).not.toBe(b.safeTxHash);
    expect(stale.body.detail).toContain(rebuilt.safeTxHash);
    expect((await traderView(second.id)).body.safeTxHash).toBe(rebuilt.safeTxHash); // stored on the payout too
    // Still refused once the payout knows it was rebuilt: the set recovers to owners over the nonce-n build.
    expect((await authorize(second.id, oldSignatures)).body).toMatchObject({
      error: 'payout_authorization_stale',
      detail: `signed for Safe nonce ${n}; the payout was rebuilt for Safe nonce ${n + 1n}: sign safeTxHash ${rebuilt.safeTxHash}`,
    });

    const fresh = await sign(ownerKeys.slice(1, 3), rebuilt.safeTx);
    expect((await authorize(second.id, fresh)).body).toMatchObject({ status: 'authorized', safeNonce: String(n + 1n) });
    await executeSafeTx(rpcUrl, ownerKeys[0], {
      safe,
      to: rebuilt.safeTx.to,
      data: rebuilt.safeTx.data,
      signatures: fresh,
    });
    expect((await executed(second.id)).body.executedTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await received(first.to)).toBe(usdToUnits('10'));
    expect(await received(second.to)).toBe(usdToUnits('10'));
    expect(await paidOut()).toBe('20');
    await maybeSaveHistory(s.temporal.workflow.getHandle(payoutWorkflowId(second.id)), 'payout-rebuilt-executed');
  }, 120_000);

  let pendingOne: string;
  it("an unrelated transaction of the owners' Safe voids an authorized payout's signatures: it is rebuilt, and only then can it be canceled", async () => {
    pendingOne = (await requested('10')).id;
    const before = await shown(pendingOne);
    const signatures = await sign(ownerKeys.slice(0, 2), before.safeTx);
    expect((await authorize(pendingOne, signatures)).body.status).toBe('authorized');
    // Its signed transaction can still execute: no cancel.
    expect(await cancel(pendingOne)).toMatchObject({ status: 409, body: { error: 'payout_cancel_unsafe' } });
    expect((await call('GET', payoutPath(pendingOne))).body.status).toBe('authorized');

    // The owners execute something else at that nonce: a 0-value call, a no-op.
    const chainId = before.safeTx.chainId;
    const noop = { safe, chainId, to: addr(generatePrivateKey()), data: '0x' as Hex, nonce: before.safeNonce };
    await execute(noop);
    const n = BigInt(before.safeNonce);
    const rebuilt = (
      await waitFor(
        () => call('GET', payoutPath(pendingOne)),
        (r) => r.body.safeNonce === String(n + 1n),
        FOLLOW_MS,
        250,
      )
    ).body;
    expect(rebuilt).toMatchObject({ status: 'requested', signers: [], authorizedAt: null });
    expect(rebuilt.safeTxHash).not.toBe(before.safeTxHash);
    expect((await authorize(pendingOne, signatures)).body).toMatchObject({
      error: 'payout_authorization_stale',
      detail: `signed for Safe nonce ${n}; the payout was rebuilt for Safe nonce ${n + 1n}: sign safeTxHash ${rebuilt.safeTxHash}`,
    });
  }, 120_000);

  let last: { id: string; to: Address };
  it('cancel frees the ceiling: a payout that fits only after the cancel is accepted; a canceled payout takes nothing more', async () => {
    const room = ceiling.sub(20).sub(10); // paid 20, pending 10
    const filling = await requested(room.toFixed());
    expect(await request('1')).toMatchObject({ status: 400, body: { error: 'payout_exceeds_ceiling' } });

    const canceled = await cancel(pendingOne, 'duplicate request');
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
    expect(canceled.body).toMatchObject({
      payoutId: pendingOne,
      status: 'canceled',
      cancelReason: 'duplicate request',
    });
    expect(canceled.body.canceledAt).toMatch(/^\d{4}-/);
    last = await requested('10'); // exactly the canceled amount
    expect(await request('0.01')).toMatchObject({ status: 400, body: { error: 'payout_exceeds_ceiling' } });

    expect((await traderView(pendingOne)).body).toMatchObject({
      status: 'canceled',
      cancelReason: 'duplicate request',
    });
    const listed = await call('GET', `/api/v1/firms/${firmId}/payouts?status=canceled`);
    expect(listed.body.data.map((p: { payoutId: string }) => p.payoutId)).toEqual([pendingOne]);
    const handle = s.temporal.workflow.getHandle<() => Promise<PayoutStatus>>(payoutWorkflowId(pendingOne));
    expect(await handle.result()).toMatchObject({ status: 'canceled', cancelReason: 'duplicate request' });
    expect(await cancel(pendingOne)).toMatchObject({ status: 409, body: { error: 'invalid_state' } });
    const anySignatures = await sign(ownerKeys.slice(0, 2), (await shown(filling.id)).safeTx);
    expect(await authorize(pendingOne, anySignatures)).toMatchObject({ status: 409, body: { error: 'invalid_state' } });
    await maybeSaveHistory(handle, 'payout-canceled');

    // The payout filling the ceiling is canceled without a reason: the default one is stored.
    expect((await cancel(filling.id)).body).toMatchObject({
      status: 'canceled',
      cancelReason: 'canceled by the operator',
    });
  }, 60_000);

  it('a payout already paid cannot be canceled', async () => {
    expect(await cancel(first.id, 'too late')).toMatchObject({
      status: 409,
      body: { error: 'payout_already_executed' },
    });
    expect((await traderView(first.id)).body).toMatchObject({ status: 'executed', cancelReason: null });
  });

  it('a worker killed between the Safe execution and the record records the payment exactly once', async () => {
    const tx = (await shown(last.id)).safeTx;
    const signatures = await sign(ownerKeys.slice(0, 2), tx);
    expect((await authorize(last.id, signatures)).body.status).toBe('authorized');

    await s.stopWorker();
    await executeSafeTx(rpcUrl, ownerKeys[1], { safe, to: tx.to, data: tx.data, signatures });
    expect(await received(last.to)).toBe(usdToUnits('10')); // paid on-chain, not yet recorded
    expect((await traderView(last.id)).body.status).toBe('authorized');
    await s.startWorker();

    // A read the stopping worker had taken is retried once its 30 s start-to-close timeout passes.
    const done = await executed(last.id, FOLLOW_MS);
    expect(await received(last.to)).toBe(usdToUnits('10'));
    expect(await paidOut()).toBe('30');
    const ledger = await s.orm.em.fork().find(PropLedgerEntry, { ref: `payout:${last.id}` }, { filters: false });
    expect(ledger.map((e) => [e.kind, e.amountUsd, e.txHash])).toEqual([['payout', '10', done.body.executedTxHash]]);
    const proof = await s.call('GET', `/api/prop/transparency/${firmId}`);
    expect(proof.body).toMatchObject({
      ledger: { payInsUsd: '100', collateralUsd: '5000', payoutsUsd: '30' },
      reconciliation: { status: 'reconciled', differenceUsd: '0' },
    });
  }, 150_000);
});
