/**
 * The authentication cache across api processes (api/auth/auth-cache.ts, docs/api.md §5.2): two api
 * processes on one database, each caching tenants, credentials and the revoked token list; a
 * revocation, a suspension or a changed scope made through one (or straight in PostgreSQL) is
 * enforced by the other within the NOTIFY latency, and a lost LISTEN connection falls back to
 * reading PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Credential, Tenant } from '../../db/entities.js';
import { platformEm, scoped } from '../../db/orm.js';
import { revokeCredential } from '../../db/seed.js';
import { startApi, type RunningApi } from '../../api/server.js';
import { NOTICES_APPLICATION } from '../../db/notices.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait.js';

/** How long a change may take to reach the other process (NOTIFY latency on a busy test machine). */
const WITHIN_MS = 2_000;

describe('authentication cache, two api processes', () => {
  let s: Stack;
  let other: RunningApi;
  beforeAll(async () => {
    s = await startStack({ worker: false });
    other = await startApi({ config: s.config, orm: s.orm, logger: pino({ level: 'silent' }) });
  });
  afterAll(async () => {
    await other?.stop();
    await s?.stop();
  });

  /** A request to the second api process, without letting its cache settle first. */
  const onOther = async (path: string, token: string, slug = s.tenant.slug) => {
    const res = await fetch(`${other.baseUrl}${path}`, {
      headers: { 'x-tenant-slug': slug, authorization: `Bearer ${token}` },
    });
    return { status: res.status, body: (await res.json()) as { error?: string } };
  };
  const order = { venue: 'paper', symbol: 'SOL.PAPER', side: 'buy', type: 'market', qty: '1' };
  /** A market order composed on the second api process (a write: refused for a revoked credential). */
  const composeOnOther = async (token: string) => {
    const r = await fetch(`${other.baseUrl}/api/v1/oms/intents`, {
      method: 'POST',
      headers: { 'x-tenant-slug': s.tenant.slug, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(order),
    });
    return { status: r.status, body: (await r.json()) as { error?: string } };
  };
  /** Polls the second process until `done` holds (or the deadline passes); the last answer. */
  const eventually = async (
    ask: () => ReturnType<typeof onOther>,
    done: (r: Awaited<ReturnType<typeof onOther>>) => boolean,
  ) => {
    const deadline = Date.now() + WITHIN_MS;
    let last = await ask();
    while (!done(last) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      last = await ask();
    }
    return last;
  };

  it('a token revoked through one process is refused by the other', async () => {
    const t = await s.trader();
    // Both processes have read (and cached) the credential and the tenant.
    expect((await s.call('GET', '/api/v1/accounts', { token: t.token })).status).toBe(200);
    expect((await onOther('/api/v1/accounts', t.token)).status).toBe(200);

    const res = await s.call('POST', '/api/auth/api-token/revoke', { body: { token: t.token } });
    expect(res.body).toEqual({ ok: true, revoked: true });
    // The revoking process refuses it at once, the other within the NOTIFY latency.
    const here = await fetch(`${s.api.baseUrl}/api/v1/accounts`, {
      headers: { 'x-tenant-slug': s.tenant.slug, authorization: `Bearer ${t.token}` },
    });
    expect(here.status).toBe(401);
    const there = await eventually(
      () => onOther('/api/v1/accounts', t.token),
      (r) => r.status === 401,
    );
    expect(there).toMatchObject({ status: 401, body: { error: 'token_revoked' } });
  });

  it('a credential revoked in PostgreSQL loses its writes on both processes', async () => {
    const t = await s.trader();
    expect((await onOther(`/api/v1/accounts/${t.accountId}/state`, t.token)).status).toBe(200);
    await revokeCredential(s.orm, s.tenant.id, t.credentialId);
    expect(await s.call('POST', '/api/v1/oms/intents', { token: t.token, body: order })).toMatchObject({
      status: 401,
      body: { error: 'credential_revoked' },
    });
    expect(
      await eventually(
        () => composeOnOther(t.token),
        (r) => r.status === 401,
      ),
    ).toMatchObject({
      status: 401,
      body: { error: 'credential_revoked' },
    });
  });

  it('a suspended tenant is refused by both processes, and served again once reinstated', async () => {
    const t = await s.trader();
    expect((await onOther('/api/v1/accounts', t.token)).status).toBe(200);
    const setSuspended = (suspended: boolean) =>
      platformEm(s.orm).nativeUpdate(Tenant, { id: s.tenant.id }, { suspended });
    await setSuspended(true);
    try {
      expect((await s.call('GET', '/api/v1/accounts', { token: t.token })).status).toBe(410);
      expect(
        await eventually(
          () => onOther('/api/v1/accounts', t.token),
          (r) => r.status === 410,
        ),
      ).toMatchObject({ status: 410, body: { error: 'tenant_suspended' } });
    } finally {
      await setSuspended(false);
    }
    expect(
      (
        await eventually(
          () => onOther('/api/v1/accounts', t.token),
          (r) => r.status === 200,
        )
      ).status,
    ).toBe(200);
  });

  it("an operator's removed scope is refused by the other process", async () => {
    const op = await s.operator(['firm:operate']);
    expect((await onOther('/api/v1/firms', op.token)).status).toBe(200);
    await scoped(s.orm, s.tenant.id).nativeUpdate(Credential, { id: op.credentialId }, { scopes: [] });
    expect(
      await eventually(
        () => onOther('/api/v1/firms', op.token),
        (r) => r.status === 403,
      ),
    ).toMatchObject({ status: 403, body: { error: 'forbidden' } });
  });

  it('with its LISTEN connection cut, a process reads PostgreSQL and still refuses a revoked credential at once', async () => {
    const t = await s.trader();
    expect((await onOther(`/api/v1/accounts/${t.accountId}/state`, t.token)).status).toBe(200);
    // Both processes cache (their LISTEN connections are up; another test's cut may have them reconnecting).
    const both = () => [s.api.auth.listening(), other.auth.listening()];
    await waitFor(
      async () => both(),
      (x) => x.every(Boolean),
      40_000,
    );
    await platformEm(s.orm)
      .getConnection()
      .execute(
        `select pg_terminate_backend(pid) from pg_stat_activity where application_name = ? and datname = current_database()`,
        [NOTICES_APPLICATION],
      );
    // Both see their connection close and stop serving from memory.
    expect(
      await waitFor(
        async () => both(),
        (x) => !x.some(Boolean),
        5_000,
      ),
    ).toEqual([false, false]);
    await revokeCredential(s.orm, s.tenant.id, t.credentialId);
    // No notification can reach the cut connection: the answer must come from PostgreSQL.
    expect(await composeOnOther(t.token)).toMatchObject({ status: 401, body: { error: 'credential_revoked' } });
  });
});
