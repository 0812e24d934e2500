/**
 * Self-signing credentials (docs/api.md §3.1): compose answers `intent_pending` with EIP-712 typed data;
 * `sign-result` with a signature that recovers the credential's signer dispatches and answers the
 * outcome from the workflow (the fill, or `400 { ok: false, error, detail }`); anything else
 * dispatches nothing. On Hyperliquid and Aster the signer signs the venue's own request, which the
 * venue's simulator verifies as the venue does; Kalshi and Polymarket take no self-signed order.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Decimal } from '../../domain/decimal.js';
import { Fill } from '../../db/entities.js';
import { openOrm, scoped } from '../../db/orm.js';
import { issueCredential } from '../../db/seed.js';
import { VENUE_SYMBOLS } from '../../domain/market/symbols.js';
import { venueUser } from '../../simulators/index.js';
import { asterAdapter } from '../../venues/aster/adapter.js';
import { startStack, bearerOf, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { intentWorkflowId } from '../../modules/oms/workflows/intent.definitions.js';
import { maybeSaveHistory } from '../support/histories.js';
import { authorizeAgent, startSimulators, type Simulators } from '../support/venues.js';
import { waitFor } from '../support/wait.js';

describe('sign-result', () => {
  let s: Stack;
  let sims: Simulators;
  let simOrm: MikroORM;
  const signer = privateKeyToAccount(generatePrivateKey());
  const stranger = privateKeyToAccount(generatePrivateKey());
  let token: string;
  beforeAll(async () => {
    // The simulators read the run's mark store (their own connection); the stack is pointed at them.
    simOrm = await openOrm(inject('databaseUrl'));
    sims = await startSimulators(simOrm);
    s = await startStack({ env: sims.env });
    await publish(s.orm, await recordedTick('ETH.PAPER', 0.8));
    const cred = await issueCredential(s.orm, {
      tenantId: s.tenant.id,
      audience: 'trader',
      signerAddress: signer.address,
    });
    token = await bearerOf(s, cred);
  });
  afterAll(async () => {
    await s?.stop();
    await sims?.stop();
    await simOrm?.close();
  });

  /**
   * A self-signing trader credential whose signer is `address`, on a fresh internalised account unless `of` names
   * an account or asks for a routed one; and its bearer.
   */
  const selfSigning = async (
    address: string,
    of?: { ownerId: string; accountId: string } | { account: { executionMode: 'routed' } },
  ) => {
    const cred = await issueCredential(s.orm, {
      tenantId: s.tenant.id,
      audience: 'trader',
      signerAddress: address,
      ...of,
    });
    const res = await s.call('POST', '/api/auth/api-token', {
      body: { apiKey: cred.apiKey, apiSecret: cred.apiSecret },
    });
    return { ...cred, token: res.body.token as string };
  };

  const ROUTED = { account: { executionMode: 'routed' } } as const;

  const compose = (body: Record<string, unknown> = {}) =>
    s.call('POST', '/api/v1/oms/intents', {
      token,
      body: { venue: 'paper', symbol: 'ETH.PAPER', side: 'buy', type: 'market', qty: '0.2', ...body },
    });
  const sign = (intentId: string, signature: string) =>
    s.call('POST', `/api/v1/oms/intents/${intentId}/sign-result`, { token, body: { signedPayload: { signature } } });

  it('waits in intent_pending; a wrong signature dispatches nothing; the right one fills inline', async () => {
    const c = await compose();
    expect(c.status).toBe(201);
    expect(c.body.state).toBe('intent_pending');
    const { typedData } = c.body.signingRequest;
    expect(typedData.message).toMatchObject({
      intentId: c.body.intentId,
      qty: '0.2',
      orderType: 'market',
      symbol: 'ETH.PAPER',
    });

    const wrong = await sign(c.body.intentId, await stranger.signTypedData(typedData));
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_signature' } });
    const tampered = await sign(
      c.body.intentId,
      await signer.signTypedData({ ...typedData, message: { ...typedData.message, qty: '20' } }),
    );
    expect(tampered.body.error).toBe('invalid_signature');
    expect((await s.call('GET', `/api/v1/oms/intents/${c.body.intentId}`, { token })).body.state).toBe(
      'intent_pending',
    );
    expect(await scoped(s.orm, s.tenant.id).count(Fill, { intentId: c.body.intentId })).toBe(0);

    const ok = await sign(c.body.intentId, await signer.signTypedData(typedData));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({
      ok: true,
      intentId: c.body.intentId,
      venueOrderId: `paper-${c.body.intentId}`,
      resting: false,
      inlineFill: { qty: '0.2' },
    });
    expect(await sign(c.body.intentId, await signer.signTypedData(typedData))).toMatchObject({
      status: 409,
      body: { error: 'invalid_state' },
    });
    const handle = s.temporal.workflow.getHandle(intentWorkflowId(c.body.intentId));
    expect(await handle.result()).toMatchObject({ state: 'filled' });
    await maybeSaveHistory(handle, 'intent-self-signed-filled');
  });

  it('a resting limit answers resting: true', async () => {
    const c = await compose({ type: 'limit', price: '1000' });
    const ok = await sign(c.body.intentId, await signer.signTypedData(c.body.signingRequest.typedData));
    expect(ok.body).toMatchObject({ ok: true, resting: true });
    expect(ok.body.inlineFill).toBeUndefined();
  });

  it('a dispatch the risk check refuses answers 400 { ok: false, error, detail }', async () => {
    const c = await compose({ qty: '500' });
    const res = await sign(c.body.intentId, await signer.signTypedData(c.body.signingRequest.typedData));
    expect(res).toMatchObject({
      status: 400,
      body: {
        ok: false,
        intentId: c.body.intentId,
        error: 'insufficient_margin',
        detail: `intent ${c.body.intentId} was not dispatched (insufficient_margin)`,
      },
    });
    const handle = s.temporal.workflow.getHandle(intentWorkflowId(c.body.intentId));
    expect(await handle.result()).toMatchObject({ state: 'rejected', reason: 'insufficient_margin' });
    await maybeSaveHistory(handle, 'intent-self-signed-refused');
  });

  it('modify of an intent nothing signed is 409 agent_not_dispatchable', async () => {
    const c = await compose({ type: 'limit', price: '1000' });
    const res = await s.call('POST', '/api/v1/oms/modify', {
      token,
      body: { intentId: c.body.intentId, newPrice: 1001 },
    });
    expect(res).toMatchObject({ status: 409, body: { error: 'agent_not_dispatchable' } });
  });

  it('a flatten by a self-signing credential: legs wait signed in order; a later leg first is 409 batch_predecessor_pending', async () => {
    const self = await issueCredential(s.orm, {
      tenantId: s.tenant.id,
      audience: 'trader',
      signerAddress: signer.address,
    });
    const selfToken = await bearerOf(s, self);
    // positions opened through a platform-signed credential of the same trader and account
    const helper = await issueCredential(s.orm, {
      tenantId: s.tenant.id,
      audience: 'trader',
      ownerId: self.ownerId,
      accountId: self.accountId!,
    });
    const helperToken = await bearerOf(s, helper);
    await publish(s.orm, await recordedTick('SOL.PAPER', 0.8));
    for (const body of [
      { symbol: 'ETH.PAPER', qty: '0.5' },
      { symbol: 'SOL.PAPER', qty: '4' },
    ]) {
      const c = await s.call('POST', '/api/v1/oms/intents', {
        token: helperToken,
        body: { venue: 'paper', side: 'buy', type: 'market', ...body },
      });
      await waitFor(
        () => s.call('GET', `/api/v1/oms/intents/${c.body.intentId}`, { token: helperToken }),
        (x) => x.body.state === 'filled',
      );
    }
    const flat = await s.call('POST', '/api/v1/oms/flatten', { token: selfToken, body: {} });
    expect(flat.status, JSON.stringify(flat.body)).toBe(200);
    const [first, second] = flat.body.legs;
    const leg = async (id: string) => (await s.call('GET', `/api/v1/oms/intents/${id}`, { token: selfToken })).body;
    expect((await leg(second.intentId)).state).toBe('intent_pending');
    const signLeg = async (id: string) => {
      const l = await leg(id);
      const { typedData } = (await import('../../domain/oms/signing.js')).paperSigningRequest({
        ...l,
        intentId: l.intentId,
      });
      return s.call('POST', `/api/v1/oms/intents/${id}/sign-result`, {
        token: selfToken,
        body: { signedPayload: { signature: await signer.signTypedData(typedData) } },
      });
    };
    expect(await signLeg(second.intentId)).toMatchObject({ status: 409, body: { error: 'batch_predecessor_pending' } });
    expect(await signLeg(first.intentId)).toMatchObject({ status: 200, body: { ok: true, resting: false } });
    expect(await signLeg(second.intentId)).toMatchObject({ status: 200, body: { ok: true, resting: false } });
    const outcome = await s.temporal.workflow.getHandle(`batch-${flat.body.batchId}`).result();
    expect(outcome.legs.map((l: { state: string }) => l.state)).toEqual(['filled', 'filled']);
  });

  it('hyperliquid: the owner’s wallet signs the venue’s own order action; it fills on the venue and sign-result answers the fill', async () => {
    const user = venueUser('hyperliquid', generatePrivateKey());
    const owner = privateKeyToAccount(user.privateKey);
    const t = await selfSigning(owner.address, ROUTED);
    await authorizeAgent(s, sims, t.token, t.accountId!, 'hyperliquid', user);
    const symbol = VENUE_SYMBOLS.hyperliquid.find((x) => x.base === 'ETH')!.symbol;
    const tick = await recordedTick(symbol, 0.5, 'hyperliquid');
    await publish(s.orm, tick);
    const order = (body: Record<string, unknown>) =>
      s.call('POST', '/api/v1/oms/intents', {
        token: t.token,
        body: { venue: 'hyperliquid', symbol, side: 'buy', qty: '0.01', ...body },
      });
    const signAs = async (
      account: typeof owner,
      intentId: string,
      typedData: Parameters<typeof owner.signTypedData>[0],
    ) =>
      s.call('POST', `/api/v1/oms/intents/${intentId}/sign-result`, {
        token: t.token,
        body: { signedPayload: { signature: await account.signTypedData(typedData) } },
      });

    const c = await order({ type: 'market' });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    expect(c.body).toMatchObject({ state: 'intent_pending', venue: 'hyperliquid' });
    const { typedData } = c.body.signingRequest;
    expect(typedData).toMatchObject({ primaryType: 'Agent', domain: { name: 'Exchange', chainId: 1337 } });
    const before = sims.hyperliquid.orderCount(owner.address);
    expect(await signAs(stranger, c.body.intentId, typedData)).toMatchObject({
      status: 400,
      body: { error: 'invalid_signature' },
    });
    expect(sims.hyperliquid.orderCount(owner.address)).toBe(before);

    const ok = await signAs(owner, c.body.intentId, typedData);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, intentId: c.body.intentId, resting: false, inlineFill: { qty: '0.01' } });
    expect(ok.body.venueOrderId).toMatch(/^\d+$/); // the exchange's oid
    expect(sims.hyperliquid.orderCount(owner.address)).toBe(before + 1);
    expect((await s.call('GET', `/api/v1/oms/intents/${c.body.intentId}`, { token: t.token })).body).toMatchObject({
      state: 'filled',
      venueOrderId: ok.body.venueOrderId,
      filledQty: '0.01',
    });
    const handle = s.temporal.workflow.getHandle(intentWorkflowId(c.body.intentId));
    expect(await handle.result()).toMatchObject({ state: 'filled' });
    await maybeSaveHistory(handle, 'intent-routed-hyperliquid-self-signed-filled');

    // A resting limit (half the mark) answers resting: true; the agent cancels it on the venue.
    const price = tick.mark.div(2).toDecimalPlaces(0, Decimal.ROUND_DOWN).toFixed();
    const limit = await order({ type: 'limit', price, qty: '0.1' });
    const rests = await signAs(owner, limit.body.intentId, limit.body.signingRequest.typedData);
    expect(rests.body, JSON.stringify(rests.body)).toMatchObject({ ok: true, resting: true });
    expect(rests.body.inlineFill).toBeUndefined();
    const canceled = await s.call('POST', '/api/v1/oms/cancel', {
      token: t.token,
      body: { venueOrderId: rests.body.venueOrderId },
    });
    expect(canceled).toMatchObject({ status: 200, body: { state: 'canceled', intentId: limit.body.intentId } });

    // Hyperliquid applies a signed order to the signer's own account: another signer on this account is refused.
    const other = await selfSigning(stranger.address, { ownerId: t.ownerId, accountId: t.accountId! });
    expect(
      await s.call('POST', '/api/v1/oms/intents', {
        token: other.token,
        body: { venue: 'hyperliquid', symbol, side: 'buy', type: 'market', qty: '0.01' },
      }),
    ).toMatchObject({ status: 403, body: { error: 'signer_not_venue_owner' } });
  });

  it('aster: an API wallet of the owner signs the venue’s request; before the owner approved it the venue’s refusal is 400 { ok: false, error, detail }', async () => {
    const user = venueUser('aster', generatePrivateKey());
    const apiWallet = privateKeyToAccount(generatePrivateKey());
    const t = await selfSigning(apiWallet.address, ROUTED);
    await authorizeAgent(s, sims, t.token, t.accountId!, 'aster', user);
    const symbol = VENUE_SYMBOLS.aster.find((x) => x.base === 'ETH')!.symbol;
    const marketOrder = async () => {
      await publish(s.orm, await recordedTick(symbol, 0.5, 'aster'));
      const c = await s.call('POST', '/api/v1/oms/intents', {
        token: t.token,
        body: { venue: 'aster', symbol, side: 'buy', type: 'market', qty: '0.01' },
      });
      expect(c.status, JSON.stringify(c.body)).toBe(201);
      expect(c.body.signingRequest.typedData).toMatchObject({
        primaryType: 'Message',
        domain: { name: 'AsterSignTransaction' },
      });
      const res = await s.call('POST', `/api/v1/oms/intents/${c.body.intentId}/sign-result`, {
        token: t.token,
        body: { signedPayload: { signature: await apiWallet.signTypedData(c.body.signingRequest.typedData) } },
      });
      return { intentId: c.body.intentId as string, res };
    };

    const refused = await marketOrder();
    expect(refused.res).toMatchObject({
      status: 400,
      body: {
        ok: false,
        intentId: refused.intentId,
        error: 'venue_rejected',
        detail: 'Invalid API-key, IP, or permissions for action.',
      },
    });
    expect((await s.call('GET', `/api/v1/oms/intents/${refused.intentId}`, { token: t.token })).body.rejectReason).toBe(
      'venue_rejected: Invalid API-key, IP, or permissions for action.',
    );

    // The owner approves the credential's signer as an API wallet on Aster (the venue's own registration).
    const registration = asterAdapter.authorizationRequest({
      owner: user.owner,
      agentAddress: apiWallet.address,
      agentName: 'my-signer',
      expiresAt: Date.now() + 86_400_000,
      nonce: Date.now(),
      network: 'mainnet',
    });
    if (registration.kind !== 'eip712') throw new Error('Aster authorises with an EIP-712 signature');
    await asterAdapter.submitAuthorization(
      {
        baseUrl: sims.aster.url,
        network: 'mainnet',
        agent: { kind: 'evm', privateKey: generatePrivateKey(), address: apiWallet.address },
        owner: user.owner,
        nextNonce: async () => 0n,
        fetch,
      },
      {
        request: registration,
        signature: await privateKeyToAccount(user.privateKey).signTypedData(registration.typedData),
      },
    );
    const filled = await marketOrder();
    expect(filled.res.status, JSON.stringify(filled.res.body)).toBe(200);
    expect(filled.res.body).toMatchObject({ ok: true, resting: false, inlineFill: { qty: '0.01' } });
    expect(filled.res.body.venueOrderId).toMatch(/^\d+$/);
    const handle = s.temporal.workflow.getHandle(intentWorkflowId(filled.intentId));
    expect(await handle.result()).toMatchObject({ state: 'filled' });
    await maybeSaveHistory(handle, 'intent-routed-aster-self-signed-filled');
  });

  it('kalshi and polymarket take no self-signed order: compose is 400 self_signing_unsupported and records nothing', async () => {
    const t = await selfSigning(signer.address, ROUTED);
    for (const venue of ['kalshi', 'polymarket'] as const) {
      const res = await s.call('POST', '/api/v1/oms/intents', {
        token: t.token,
        body: { venue, symbol: VENUE_SYMBOLS[venue][0].symbol, side: 'buy', type: 'limit', price: '0.02', qty: '10' },
      });
      expect(res, venue).toMatchObject({ status: 400, body: { error: 'self_signing_unsupported' } });
    }
    expect((await s.call('GET', '/api/v1/oms/intents', { token: t.token })).body.intents).toEqual([]);
  });

  it("an unknown or another credential's intent is 404", async () => {
    expect((await sign('int_nope', '0x00')).body.error).toBe('intent_not_found');
  });
});
