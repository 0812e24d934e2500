/**
 * Self-signing credentials (docs/api.md §3.1): compose answers `intent_pending` with EIP-712 typed data;
 * `sign-result` with a signature that recovers the credential's signer dispatches; anything else
 * dispatches nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Fill } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { issueCredential } from '../../db/seed.js';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { intentWorkflowId } from '../../modules/oms/workflows/intent.definitions.js';
import { maybeSaveHistory } from '../support/histories.js';
import { waitFor } from '../support/wait.js';

describe('sign-result', () => {
  let s: Stack;
  const signer = privateKeyToAccount(generatePrivateKey());
  const stranger = privateKeyToAccount(generatePrivateKey());
  let token: string;
  beforeAll(async () => {
    s = await startStack();
    await publish(s.orm, await recordedTick('ETH.PAPER', 0.8));
    const cred = await issueCredential(s.orm, {
      tenantId: s.tenant.id,
      audience: 'trader',
      signerAddress: signer.address,
    });
    token = (await s.call('POST', '/api/auth/api-token', { body: { apiKey: cred.apiKey, apiSecret: cred.apiSecret } }))
      .body.token;
  });
  afterAll(async () => s?.stop());

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

  it('a dispatch the risk check refuses answers 400 ok: false', async () => {
    const c = await compose({ qty: '500' });
    const res = await sign(c.body.intentId, await signer.signTypedData(c.body.signingRequest.typedData));
    expect(res).toMatchObject({ status: 400, body: { ok: false, error: 'insufficient_margin' } });
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
    const selfToken = (
      await s.call('POST', '/api/auth/api-token', { body: { apiKey: self.apiKey, apiSecret: self.apiSecret } })
    ).body.token;
    // positions opened through a platform-signed credential of the same trader and account
    const helper = await issueCredential(s.orm, {
      tenantId: s.tenant.id,
      audience: 'trader',
      ownerId: self.ownerId,
      accountId: self.accountId!,
    });
    const helperToken = (
      await s.call('POST', '/api/auth/api-token', { body: { apiKey: helper.apiKey, apiSecret: helper.apiSecret } })
    ).body.token;
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

  it("an unknown or another credential's intent is 404", async () => {
    expect((await sign('int_nope', '0x00')).body.error).toBe('intent_not_found');
  });
});
