/**
 * Hostile input (issue 16, items 3-7): a bad request is a 4xx with `{ error, detail }`, never a 500, and
 * leaves nothing behind. Body parsing (size, Content-Encoding, JSON), NUL and unpaired surrogates in
 * bodies, path and query parameters, forged cursors on every cursor list, idempotency keys that never
 * stay stuck (deep bodies, unstorable answers, a claim left by a dead process), and string bounds at
 * the column size. After each: the server still answers and the key or row is as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { pino } from 'pino';
import { Account, OrderIntent, Trade, TradingGroup } from '../../db/entities.js';
import { platformEm, scoped } from '../../db/orm.js';
import { ApiError } from '../../domain/errors.js';
import { errorHandler } from '../../api/middleware/errors.js';
import { idempotency } from '../../api/middleware/idempotency.js';
import type { ApiState } from '../../api/context.js';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';

/** `depth` nested objects around `leaf`: depth 1 is `{ a: leaf }`. */
const nest = (depth: number, leaf: unknown = 1): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};
/** A cursor as this API encodes one, with any content. */
const forge = (at: unknown, id: unknown) => Buffer.from(JSON.stringify([at, id])).toString('base64url');
/** A manual-trade import body (one hour, long, +10 USD). */
const WINDOW = { entryTime: '2026-01-01T00:00:00Z', exitTime: '2026-01-01T01:00:00Z' };
const manualTrade = (symbol = 'BTC.PAPER') => ({
  symbol,
  side: 'long',
  qty: 1,
  entryPrice: 100,
  exitPrice: 110,
  ...WINDOW,
});

describe('hostile input', () => {
  let s: Stack;
  let trader: { token: string; accountId: string; credentialId: string; apiKey: string; apiSecret: string };
  /** Bearers by role: the trader, and operators with one scope each. */
  const tokens: Record<'trader' | 'firm' | 'prop' | 'config', string> = { trader: '', firm: '', prop: '', config: '' };
  const order = { venue: 'paper', symbol: 'SOL.PAPER', side: 'buy', type: 'market', qty: '1' };

  beforeAll(async () => {
    s = await startStack();
    await publish(s.orm, await recordedTick('SOL.PAPER', 0.25));
    const t = await s.trader();
    trader = { ...t, accountId: t.accountId! };
    tokens.trader = t.token;
    tokens.firm = (await s.operator(['firm:operate'])).token;
    tokens.prop = (await s.operator(['prop:manage'])).token;
    tokens.config = (await s.operator(['tenant:config'])).token;
  });
  afterAll(async () => s?.stop());

  const em = () => scoped(s.orm, s.tenant.id);
  const counts = async () => ({
    accounts: await em().count(Account, {}),
    intents: await em().count(OrderIntent, {}),
    trades: await em().count(Trade, {}),
    groups: await em().count(TradingGroup, {}),
  });
  /** The server answers: health, and a mint with the trader's own key. */
  const expectAlive = async () => {
    expect((await fetch(`${s.api.baseUrl}/healthz`)).status).toBe(200);
    const mint = await s.call('POST', '/api/auth/api-token', {
      body: { apiKey: trader.apiKey, apiSecret: trader.apiSecret },
    });
    expect(mint.status).toBe(200);
  };
  /** A raw POST: any body bytes and headers (JSON content type unless overridden). */
  const post = async (path: string, body: Buffer | string, headers: Record<string, string> = {}, token?: string) => {
    const res = await fetch(`${s.api.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        'x-tenant-slug': s.tenant.slug,
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const mintBody = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({ apiKey: trader.apiKey, apiSecret: trader.apiSecret, ...extra });

  describe('3. body parsing answers 4xx, never 500, even on the unauthenticated mint', () => {
    it.each([
      [
        'a body over 256 KB',
        () => post('/api/auth/api-token', mintBody({ pad: 'x'.repeat(300_000) })),
        413,
        'payload_too_large',
      ],
      [
        'a gzip body that inflates past 256 KB (a zip bomb)',
        () =>
          post('/api/auth/api-token', gzipSync(mintBody({ pad: ' '.repeat(2_000_000) })), {
            'content-encoding': 'gzip',
          }),
        413,
        'payload_too_large',
      ],
      [
        'an unknown Content-Encoding',
        () => post('/api/auth/api-token', mintBody(), { 'content-encoding': 'compress' }),
        415,
        'unsupported_encoding',
      ],
      [
        'a gzip Content-Encoding on a body that is not gzip',
        () => post('/api/auth/api-token', mintBody(), { 'content-encoding': 'gzip' }),
        400,
        'invalid_encoding',
      ],
      [
        'a truncated gzip body',
        () => post('/api/auth/api-token', gzipSync(mintBody()).subarray(0, 12), { 'content-encoding': 'gzip' }),
        400,
        'invalid_encoding',
      ],
      [
        'a br Content-Encoding on a body that is not brotli',
        () => post('/api/auth/api-token', 'not brotli at all', { 'content-encoding': 'br' }),
        400,
        'invalid_encoding',
      ],
      ['malformed JSON', () => post('/api/auth/api-token', '{"apiKey": '), 400, 'invalid_json'],
    ])('%s', async (_n, send, status, error) => {
      const res = await send();
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body).toEqual({ error, detail: expect.any(String) });
      await expectAlive();
    });

    it('a valid gzip body is still accepted', async () => {
      const res = await post('/api/auth/api-token', gzipSync(mintBody()), { 'content-encoding': 'gzip' });
      expect(res.status).toBe(200);
      expect(res.body.token).toEqual(expect.any(String));
    });

    it('an oversized body on an authenticated write creates nothing', async () => {
      const before = await counts();
      const res = await post(
        '/api/v1/accounts',
        JSON.stringify({ name: 'big', pad: 'x'.repeat(300_000) }),
        {},
        trader.token,
      );
      expect(res).toEqual({ status: 413, body: { error: 'payload_too_large', detail: expect.any(String) } });
      expect(await counts()).toEqual(before);
      await expectAlive();
    });
  });

  describe('4. NUL and unpaired surrogates are refused before they reach PostgreSQL', () => {
    const refused = (path: string) => ({
      error: 'invalid_input',
      detail: [{ path, message: expect.any(String), code: 'invalid_characters' }],
    });

    it.each([
      [
        'a NUL in the mint apiKey',
        () => s.call('POST', '/api/auth/api-token', { body: { apiKey: '\u0000', apiSecret: 'x' } }),
        'body.apiKey',
      ],
      [
        'an unpaired surrogate in the mint apiKey',
        () => post('/api/auth/api-token', '{"apiKey":"\\ud800","apiSecret":"x"}'),
        'body.apiKey',
      ],
      [
        'a lone low surrogate in a nested value',
        () => post('/api/auth/api-token', '{"apiKey":"k","apiSecret":"s","x":{"y":["ok","\\udc00"]}}'),
        'body.x.y.1',
      ],
      [
        'a NUL in a body key',
        () => post('/api/auth/api-token', '{"apiKey":"k","apiSecret":"s","a\\u0000":1}'),
        'body.a?',
      ],
      ['a NUL in a path id', () => s.call('GET', '/api/v1/accounts/acc_%00', { token: trader.token }), 'params.id'],
      [
        'a NUL in a query parameter',
        () => s.call('GET', `/api/v1/accounts/${trader.accountId}/events?kind=fill%00`, { token: trader.token }),
        'query.kind',
      ],
      [
        'a NUL in the flatten accountId',
        () => s.call('POST', '/api/v1/oms/flatten', { token: trader.token, body: { accountId: '\u0000' } }),
        'body.accountId',
      ],
    ])('%s → 400 invalid_input', async (_n, send, path) => {
      const before = await counts();
      const res = await send();
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toEqual(refused(path));
      expect(await counts()).toEqual(before);
      await expectAlive();
    });

    it.each(['/assets/%00', '/assets/a%00.js', '/assets/%E0%A4%A'])(
      'a NUL or a bad escape in a static path %s is 400 bad_request',
      async (path) => {
        const res = await fetch(`${s.api.baseUrl}${path}`, { headers: { 'x-tenant-slug': s.tenant.slug } });
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({ error: 'bad_request', detail: expect.any(String) });
        await expectAlive();
      },
    );

    it('a create with a NUL in its name writes no row; a name with a surrogate pair (emoji) is accepted', async () => {
      const before = await counts();
      const bad = await s.call('POST', '/api/v1/accounts', { token: trader.token, body: { name: 'paper\u0000' } });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual(refused('body.name'));
      expect(await counts()).toEqual(before);
      const ok = await s.call('POST', '/api/v1/accounts', { token: trader.token, body: { name: 'paper 🚀' } });
      expect(ok.status, JSON.stringify(ok.body)).toBe(201);
      expect(ok.body.name).toBe('paper 🚀');
    });
  });

  describe('5. forged cursors are 400 invalid_cursor on every cursor list', () => {
    const AT = '2026-01-01T00:00:00.000Z';
    /** Forged cursors every list refuses. */
    const FORGED: [string, string][] = [
      ['a date outside PostgreSQL’s range', forge('-100000-01-01T00:00:00.000Z', 'x')],
      ['a date in another format', forge('Jan 1 2026', 'x')],
      ['a NUL in the id', forge(AT, 'a\u0000')],
      ['an unpaired surrogate in the id', Buffer.from(`["${AT}","\\ud800"]`).toString('base64url')],
      ['not a cursor at all', 'not-a-cursor'],
      ['three elements', Buffer.from(JSON.stringify([AT, 'x', 1])).toString('base64url')],
      ['a cursor of 5000 characters', 'A'.repeat(5000)],
    ];
    /** Forged cursors the event-sequence lists also refuse (their id is an integer `seq`). */
    const FORGED_SEQ: [string, string][] = [
      ['a non-numeric event id', forge(AT, 'abc')],
      ['a sequence beyond an integer', forge(AT, '99999999999')],
      ['a negative sequence', forge(AT, '-1')],
    ];
    const ACCOUNT_LISTS = ['events', 'funding', 'orders', 'fills', 'trades', 'order-history'];
    const OPERATOR_LISTS = {
      firm: ['firms'],
      prop: ['prop-templates', 'risk-profiles', 'trading-groups', 'prop-accounts'],
      config: ['webhooks'],
    };
    const LISTS: [string, keyof typeof tokens][] = [
      ...ACCOUNT_LISTS.map((l): [string, 'trader'] => [`/api/v1/accounts/{id}/${l}`, 'trader']),
      ['/api/v1/sor/decisions', 'trader'],
      ...Object.entries(OPERATOR_LISTS).flatMap(([role, lists]) =>
        lists.map((l): [string, keyof typeof tokens] => [`/api/v1/${l}`, role as keyof typeof tokens]),
      ),
    ];

    it.each(LISTS)('%s (%s)', async (path, role) => {
      const url = path.replace('{id}', trader.accountId);
      const seq = path.endsWith('/events') || path.endsWith('/funding');
      for (const [name, cursor] of [...FORGED, ...(seq ? FORGED_SEQ : [])]) {
        const res = await s.call('GET', `${url}?cursor=${encodeURIComponent(cursor)}`, { token: tokens[role] });
        expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(400);
        expect(res.body, name).toEqual({ error: 'invalid_cursor', detail: 'cursor is not one this API issued' });
      }
      await expectAlive();
    });

    it('issued cursors still page: the event log and an operator list', async () => {
      const imported = await s.call('POST', `/api/v1/accounts/${trader.accountId}/manual-trades`, {
        token: trader.token,
        body: manualTrade(),
      });
      expect(imported.status, JSON.stringify(imported.body)).toBe(201);
      const events = `/api/v1/accounts/${trader.accountId}/events`;
      const first = await s.call('GET', `${events}?limit=1`, { token: trader.token });
      expect(first.status).toBe(200);
      expect(first.body.nextCursor).toEqual(expect.any(String));
      const next = await s.call('GET', `${events}?limit=1&cursor=${first.body.nextCursor}`, { token: trader.token });
      expect(next.status, JSON.stringify(next.body)).toBe(200);
      expect(next.body.events).toHaveLength(1);
      expect(next.body.events[0]).not.toEqual(first.body.events[0]);

      for (const name of ['g1', 'g2'])
        expect(
          (
            await s.call('POST', '/api/v1/trading-groups', {
              token: tokens.prop,
              body: { name, leverageCaps: { paper: 5 } },
            })
          ).status,
        ).toBe(201);
      const page = await s.call('GET', '/api/v1/trading-groups?limit=1', { token: tokens.prop });
      expect(page.body.hasMore).toBe(true);
      const rest = await s.call('GET', `/api/v1/trading-groups?limit=1&cursor=${page.body.nextCursor}`, {
        token: tokens.prop,
      });
      expect(rest.status).toBe(200);
      expect(rest.body.data[0].id).not.toBe(page.body.data[0].id);
    });
  });

  describe('6. idempotency keys never stay stuck', () => {
    const compose = (key: string, body: string) =>
      post('/api/v1/oms/intents', body, { 'idempotency-key': key }, trader.token);

    it('a body nested 20 000 deep is 400 body_too_deep; the key then works', async () => {
      const before = await counts();
      const deep = `{"venue":"paper","x":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
      const res = await compose('deep-body-key-1', deep);
      expect(res).toEqual({ status: 400, body: { error: 'body_too_deep', detail: expect.any(String) } });
      expect(await counts()).toEqual(before);
      const ok = await compose('deep-body-key-1', JSON.stringify(order));
      expect(ok.status, JSON.stringify(ok.body)).toBe(201);
      expect((await counts()).intents).toBe(before.intents + 1);
      await expectAlive();
    });

    it('nesting is bounded at 32: 32 deep passes the screen, 33 is refused', async () => {
      const at32 = await post('/api/auth/api-token', mintBody({ x: nest(31) }));
      expect(at32.status, JSON.stringify(at32.body)).toBe(200);
      const at33 = await post('/api/auth/api-token', mintBody({ x: nest(32) }));
      expect(at33).toEqual({ status: 400, body: { error: 'body_too_deep', detail: expect.any(String) } });
    });

    it('an unpaired surrogate in an idempotent compose is refused before the key is taken', async () => {
      const before = await counts();
      const bad = await compose(
        'surrogate-key-1',
        JSON.stringify(order).replace('"buy"', '"buy","clientOrderId":"\\ud800"'),
      );
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('invalid_input');
      const ok = await compose('surrogate-key-1', JSON.stringify(order));
      expect(ok.status, JSON.stringify(ok.body)).toBe(201);
      expect((await counts()).intents).toBe(before.intents + 1);
    });

    it('a claim left in_progress by a dead process is taken over after 5 minutes', async () => {
      const key = 'dead-process-key';
      await platformEm(s.orm)
        .getConnection()
        .execute(
          `insert into idempotency_records (credential_id, key, request_hash, status, expires_at, created_at)
           values (?, ?, 'stale', 'in_progress', now() + interval '1 day', now() - interval '6 minutes')`,
          [trader.credentialId, key],
        );
      const started = Date.now();
      const res = await compose(key, JSON.stringify(order));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(Date.now() - started).toBeLessThan(10_000);
      const again = await compose(key, JSON.stringify(order));
      expect(again.body.intentId).toBe(res.body.intentId);
    });

    describe('answers that PostgreSQL cannot store', () => {
      let base: string;
      let calls = 0;
      let answer: () => { status: number; body: unknown };
      let server: ReturnType<Koa['listen']>;
      beforeAll(async () => {
        const app = new Koa<ApiState>();
        const log = pino({ level: 'silent' });
        app.use(async (ctx, next) => {
          ctx.state.log = log;
          ctx.state.caller = { credentialId: trader.credentialId } as ApiState['caller'];
          await next();
        });
        app.use(errorHandler());
        app.use(idempotency(s.orm));
        app.use(async (ctx) => {
          calls++;
          const a = answer();
          ctx.status = a.status;
          ctx.body = a.body;
        });
        server = app.listen(0);
        await new Promise((r) => server.once('listening', r));
        base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      });
      afterAll(() => new Promise((r) => server.close(r)));
      const send = (key: string) => fetch(`${base}/x`, { method: 'POST', headers: { 'idempotency-key': key } });
      const row = async (key: string) =>
        (
          await platformEm(s.orm)
            .getConnection()
            .execute('select status from idempotency_records where credential_id = ? and key = ?', [
              trader.credentialId,
              key,
            ])
        )[0] as { status: string } | undefined;

      it('a 4xx whose detail holds an unpaired surrogate is stored (as U+FFFD) and replayed at once', async () => {
        answer = () => {
          throw new ApiError('validation_failed', [{ path: 'body.x', message: 'bad \ud800 value', code: 'custom' }]);
        };
        calls = 0;
        const first = await send('surrogate-detail');
        expect(first.status).toBe(400);
        expect(await row('surrogate-detail')).toEqual({ status: 'done' });
        const started = Date.now();
        const second = await send('surrogate-detail');
        expect(Date.now() - started).toBeLessThan(5_000);
        expect(second.status).toBe(400);
        expect(second.headers.get('idempotency-replay')).toBe('true');
        expect(await second.json()).toEqual({
          error: 'validation_failed',
          detail: [{ path: 'body.x', message: 'bad \ufffd value', code: 'custom' }],
        });
        expect(calls).toBe(1);
      });

      it('an answer that cannot be stored at all releases the key: a retry runs again', async () => {
        answer = () => {
          throw new ApiError('validation_failed', { 'key\u0000': 1 });
        };
        calls = 0;
        const first = await send('unstorable-key');
        expect(first.status).toBe(400);
        expect(await row('unstorable-key')).toBeUndefined();
        answer = () => ({ status: 201, body: { ok: true } });
        const second = await send('unstorable-key');
        expect(second.status).toBe(201);
        expect(calls).toBe(2);
        expect(await row('unstorable-key')).toEqual({ status: 'done' });
      });
    });
  });

  describe('7. strings are bounded by their columns', () => {
    it('a manual-trade symbol of 300 characters is 400 validation_failed; no trade is written', async () => {
      const before = await counts();
      const res = await s.call('POST', `/api/v1/accounts/${trader.accountId}/manual-trades`, {
        token: trader.token,
        body: manualTrade(`${'A'.repeat(294)}.PAPER`),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toEqual({
        error: 'validation_failed',
        detail: [{ path: 'body.symbol', message: expect.any(String), code: 'too_big' }],
      });
      expect(await counts()).toEqual(before);
      await expectAlive();
    });

    it.each([
      ['cancel venueOrderId', '/api/v1/oms/cancel', { venueOrderId: 'x'.repeat(256) }, 'body.venueOrderId'],
      ['reverse symbol', '/api/v1/oms/reverse', { symbol: 'X'.repeat(256) }, 'body.symbol'],
      ['mint apiKey', '/api/auth/api-token', { apiKey: 'k'.repeat(256), apiSecret: 's' }, 'body.apiKey'],
    ])('%s over 255 characters is refused', async (_n, path, body, field) => {
      const before = await counts();
      const res = await s.call('POST', path, { token: trader.token, body });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.detail).toContainEqual({ path: field, message: expect.any(String), code: 'too_big' });
      expect(await counts()).toEqual(before);
    });

    it('a trading-group venue key over 32 characters is refused', async () => {
      const before = await counts();
      const res = await s.call('POST', '/api/v1/trading-groups', {
        token: tokens.prop,
        body: { name: 'g', leverageCaps: { ['v'.repeat(33)]: 5 } },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(await counts()).toEqual(before);
    });
  });
});
