/**
 * The account state cache (db/account-state-cache.ts, docs/api.md §2.5 "Freshness"): `GET
 * /accounts/{id}/state` served from memory is never behind what the trader was told — a read right
 * after the `filled` frame shows the fill, a balance written straight in PostgreSQL shows within the
 * NOTIFY latency, ownership is checked on every hit, and a lost LISTEN connection falls back to
 * PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { riskSocket, type RiskClient } from '../support/ws.js';
import { publish, recordedTick } from '../support/marks.js';
import { waitFor } from '../support/wait.js';
import { NOTICES_APPLICATION } from '../../db/notices.js';

interface VenueState {
  venue: string;
  balanceUsd: string;
  openPositions: number;
}

describe('account state served from memory', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack();
    await publish(s.orm, await recordedTick('ETH.PAPER', 0.5));
  });
  afterAll(async () => {
    await s?.stop();
  });

  /** `GET /state` straight to the api, without letting its caches settle first (as a client would). */
  const state = async (token: string, accountId: string) => {
    const res = await fetch(`${s.api.baseUrl}/api/v1/accounts/${accountId}/state`, {
      headers: { 'x-tenant-slug': s.tenant.slug, authorization: `Bearer ${token}` },
    });
    const body = (await res.json()) as { perVenue: VenueState[]; error?: string };
    return { status: res.status, body, paper: body.perVenue?.find((v) => v.venue === 'paper') };
  };
  const socket = (token: string): Promise<RiskClient> => riskSocket(s, token, { topics: ['Order-Intent-Changed'] });

  it('a read right after each `filled` frame shows that fill', async () => {
    const t = await s.trader();
    const ws = await socket(t.token);
    let before = await state(t.token, t.accountId!);
    expect(before.paper?.openPositions).toBe(0);
    for (const qty of ['0.1', '0.2', '0.3']) {
      const r = await s.call('POST', '/api/v1/oms/intents', {
        token: t.token,
        body: { venue: 'paper', symbol: 'ETH.PAPER', side: 'buy', type: 'market', qty },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      await ws.next(
        (f) => f.type === 'Order-Intent-Update' && f.data.intentId === r.body.intentId && f.data.state === 'filled',
      );
      const after = await state(t.token, t.accountId!);
      // The fee moves the balance on every fill; the position opens on the first.
      expect(after.paper?.openPositions).toBe(1);
      expect(after.paper?.balanceUsd).not.toBe(before.paper?.balanceUsd);
      before = after;
    }
    ws.close();
  });

  it('a balance written straight in PostgreSQL is served within the NOTIFY latency', async () => {
    const t = await s.trader();
    expect((await state(t.token, t.accountId!)).paper?.balanceUsd).toBe('100000');
    await s.orm.em
      .getConnection()
      .execute(`update account_balances set balance_usd = 12345.5 where account_id = ? and venue = 'paper'`, [
        t.accountId,
      ]);
    const seen = await waitFor(
      () => state(t.token, t.accountId!),
      (r) => r.paper?.balanceUsd === '12345.5',
      2_000,
    );
    expect(seen.paper?.balanceUsd).toBe('12345.5');
  });

  it('a held account is still refused to another trader and another tenant', async () => {
    const t = await s.trader();
    const other = await s.trader();
    expect((await state(t.token, t.accountId!)).status).toBe(200);
    expect(await state(other.token, t.accountId!)).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    const elsewhere = await s.call('GET', `/api/v1/accounts/${t.accountId}/state`, {
      token: other.token,
      headers: { 'x-tenant-slug': 'platform' },
    });
    expect(elsewhere.status).not.toBe(200);
  });

  it('with the LISTEN connection lost, reads go to PostgreSQL; caching resumes once it is back', async () => {
    const t = await s.trader();
    // A revoked token to load again on reconnecting (its expiry comes back from PostgreSQL as text).
    const spent = await s.trader();
    expect((await s.call('POST', '/api/auth/api-token/revoke', { body: { token: spent.token } })).status).toBe(200);
    expect((await state(t.token, t.accountId!)).paper?.balanceUsd).toBe('100000');
    await s.orm.em
      .getConnection()
      .execute(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ?`, [
        NOTICES_APPLICATION,
      ]);
    await waitFor(
      async () => s.api.notices.up(),
      (up) => !up,
      5_000,
    );
    // Written while nothing is notified here: served anyway, read from PostgreSQL.
    await s.orm.em
      .getConnection()
      .execute(`update account_balances set balance_usd = 777 where account_id = ? and venue = 'paper'`, [t.accountId]);
    expect((await state(t.token, t.accountId!)).paper?.balanceUsd).toBe('777');
    // Reconnects with backoff (0.5 s, doubling): on a loaded machine a first attempt may fail.
    await waitFor(
      async () => s.api.notices.up(),
      (up) => up,
      40_000,
    );
    expect((await state(t.token, t.accountId!)).paper?.balanceUsd).toBe('777');
    await s.orm.em
      .getConnection()
      .execute(`update account_balances set balance_usd = 778 where account_id = ? and venue = 'paper'`, [t.accountId]);
    expect(
      (await s.call('GET', `/api/v1/accounts/${t.accountId}/state`, { token: t.token })).body.perVenue[0],
    ).toMatchObject({
      balanceUsd: '778',
    });
  });
});
