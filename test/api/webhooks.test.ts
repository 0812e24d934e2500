/**
 * Webhooks (issue 7, part; docs/api.md §6.4), through the API, the dispatcher and the real delivery
 * workflows, to real HTTP receivers on this machine: signed at-least-once deliveries of every
 * account event, retries with backoff (a slow answer counts as a failure), the endpoint disabled
 * once the budget is spent and re-enabled by the operator, a worker restart mid-backoff, and the
 * receiver's verification helper refusing a tampered body. Durations are milliseconds here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../../domain/webhooks/signature.js';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { waitFor } from '../support/wait.js';
import { maybeSaveHistory } from '../support/histories.js';
import { webhookWorkflowId } from '../../modules/webhooks/workflows/webhook.definitions.js';

/** A receiver that answers each request with `respond(n, eventId)` (n = that event's attempt, from 1). */
async function receiver(respond: (attempt: number, eventId: string) => Promise<number> | number) {
  const got: { eventId: string; body: string; headers: IncomingMessage['headers']; status: number; ms: number }[] = [];
  const attempts = new Map<string, number>();
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const eventId = String(req.headers['x-webhook-event-id']);
    const n = (attempts.get(eventId) ?? 0) + 1;
    attempts.set(eventId, n);
    const started = Date.now();
    const status = await respond(n, eventId);
    got.push({ eventId, body, headers: req.headers, status, ms: Date.now() - started });
    if (!res.destroyed) res.writeHead(status).end();
  };
  // A failure stays an unhandled rejection, which vitest reports as an error of the run.
  const server: Server = createServer((req, res) => void answer(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    /** Events answered 200 in time (a slow 200 reaches no one: the platform gave up at its timeout). */
    delivered: () => new Set(got.filter((g) => g.status === 200 && g.ms < 250).map((g) => g.eventId)),
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

const TIMING = {
  WEBHOOK_INITIAL_BACKOFF_MS: '20',
  WEBHOOK_MAX_BACKOFF_MS: '50',
  WEBHOOK_TIMEOUT_MS: '300',
  WEBHOOK_DISPATCH_MS: '100',
};

describe('webhooks', () => {
  let s: Stack;
  let op: string;
  const order = { venue: 'paper', symbol: 'ETH.PAPER', side: 'buy', type: 'market', qty: '0.01' };

  beforeAll(async () => {
    s = await startStack({ env: TIMING });
    op = (await s.operator(['tenant:config'])).token;
    await publish(s.orm, await recordedTick('ETH.PAPER', 0.5));
  });
  afterAll(async () => s?.stop());

  /** The account events of `accountId` as webhook event ids, oldest first. */
  const eventsOf = async (token: string, accountId: string) =>
    (
      (await s.call('GET', `/api/v1/accounts/${accountId}/events?limit=500`, { token })).body.events as {
        id?: string;
        seq: number;
      }[]
    ).length;

  it('registers an endpoint (secret shown once) only with tenant:config', async () => {
    const otherToken = (await s.operator(['firm:operate'])).token;
    expect(
      await s.call('POST', '/api/v1/webhooks', { token: otherToken, body: { url: 'http://127.0.0.1:1/x' } }),
    ).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect((await s.call('POST', '/api/v1/webhooks', { token: op, body: { url: 'not a url' } })).status).toBe(400);
    const created = await s.call('POST', '/api/v1/webhooks', {
      token: op,
      body: { url: 'http://127.0.0.1:1/x', events: ['fill.executed'] },
    });
    expect(created).toMatchObject({
      status: 201,
      body: { status: 'enabled', events: ['fill.executed'], hasApiKey: false },
    });
    expect(created.body.secret).toMatch(/^whsec_/);
    const read = await s.call('GET', `/api/v1/webhooks/${created.body.id}`, { token: op });
    expect(JSON.stringify(read.body)).not.toContain(created.body.secret);
    await s.call('POST', `/api/v1/webhooks/${created.body.id}/disable`, { token: op });
  });

  it('delivers every account event at least once, signed, after failures and a slow answer; a tampered body fails verification', async () => {
    // Each event: a slow first answer (past the 300 ms timeout), a 500, then 200.
    const r = await receiver(async (n) =>
      n === 1 ? (await new Promise((res) => setTimeout(res, 500)), 200) : n === 2 ? 500 : 200,
    );
    try {
      const created = (
        await s.call('POST', '/api/v1/webhooks', { token: op, body: { url: r.url, apiKey: 'static-key-123' } })
      ).body;
      const t = await s.trader();
      const res = await s.call('POST', '/api/v1/oms/intents', { token: t.token, body: order });
      expect(res.status).toBe(201);
      await waitFor(
        () => s.call('GET', `/api/v1/oms/intents/${res.body.intentId}`, { token: t.token }),
        (x) => x.body.state === 'filled',
      );
      const expected = await eventsOf(t.token, t.accountId!);
      expect(expected).toBeGreaterThanOrEqual(3);
      await waitFor(
        async () => r.delivered().size,
        (n) => n >= expected,
        20_000,
      );
      const ok = r.got.filter((g) => g.status === 200 && g.ms < 250);
      for (const g of ok) {
        expect(verifyWebhook(created.secret, g.body, String(g.headers['x-webhook-signature']))).toBe(true);
        expect(g.headers['x-api-key']).toBe('static-key-123');
        const body = JSON.parse(g.body);
        expect(body).toMatchObject({ eventId: g.eventId, accountId: t.accountId });
        expect(typeof body.type).toBe('string');
        expect(Date.parse(body.occurredAt)).not.toBeNaN();
        expect(
          verifyWebhook(
            created.secret,
            g.body.replace(t.accountId!, 'acc_someone_else'),
            String(g.headers['x-webhook-signature']),
          ),
        ).toBe(false);
      }
      // Every event was tried three times: slow (timed out), 500, then delivered.
      for (const id of r.delivered())
        expect(r.got.filter((g) => g.eventId === id).map((g) => g.status)).toEqual([200, 500, 200]);
      await maybeSaveHistory(
        s.temporal.workflow.getHandle(webhookWorkflowId(created.id, [...r.delivered()][0])),
        'webhook-retried-delivered',
      );
      // The receiver answers 200 before the workflow records the delivery: the list catches up a moment later.
      type Delivery = { status: string; attempts: number };
      const deliveries: Delivery[] = (
        await waitFor(
          () => s.call('GET', `/api/v1/webhooks/${created.id}/deliveries`, { token: op }),
          (x) => (x.body.data as Delivery[]).every((d) => d.status === 'delivered'),
        )
      ).body.data;
      expect(deliveries.length).toBeGreaterThanOrEqual(expected);
      expect(deliveries.every((d) => d.status === 'delivered' && d.attempts >= 3)).toBe(true);
      await s.call('POST', `/api/v1/webhooks/${created.id}/disable`, { token: op });
    } finally {
      await r.close();
    }
  });

  it('disables an endpoint whose receiver stays down past the budget; re-enabled, it delivers what failed and what happened meanwhile', async () => {
    let up = false;
    const r = await receiver(() => (up ? 200 : 503));
    try {
      const created = (await s.call('POST', '/api/v1/webhooks', { token: op, body: { url: r.url, events: ['*'] } }))
        .body;
      const t = await s.trader();
      const first = await s.call('POST', '/api/v1/oms/intents', { token: t.token, body: order });
      await waitFor(
        () => s.call('GET', `/api/v1/oms/intents/${first.body.intentId}`, { token: t.token }),
        (x) => x.body.state === 'filled',
      );
      const disabled = await waitFor(
        () => s.call('GET', `/api/v1/webhooks/${created.id}`, { token: op }),
        (x) => x.body.status === 'disabled',
        20_000,
      );
      expect(disabled.body.disabledReason).toMatch(/failed 3 times/);
      // The receiver's failure is stored as its status and a short class, never an error message.
      const failures = (await s.call('GET', `/api/v1/webhooks/${created.id}/deliveries`, { token: op })).body.data;
      expect(failures.length).toBeGreaterThan(0);
      for (const d of failures) {
        expect(['http_503', 'endpoint_disabled']).toContain(d.lastError);
        if (d.lastError === 'http_503') expect(d.lastStatus).toBe(503);
      }
      // More events while disabled.
      const second = await s.call('POST', '/api/v1/oms/intents', { token: t.token, body: order });
      await waitFor(
        () => s.call('GET', `/api/v1/oms/intents/${second.body.intentId}`, { token: t.token }),
        (x) => x.body.state === 'filled',
      );
      await waitFor(
        async () =>
          (
            (await s.call('GET', `/api/v1/webhooks/${created.id}/deliveries`, { token: op })).body.data as {
              status: string;
            }[]
          ).filter((d) => d.status !== 'failed').length,
        (n) => n === 0,
        20_000,
      );

      up = true;
      expect((await s.call('POST', `/api/v1/webhooks/${created.id}/enable`, { token: op })).body.status).toBe(
        'enabled',
      );
      const expected = await eventsOf(t.token, t.accountId!);
      await waitFor(
        async () => r.delivered().size,
        (n) => n >= expected,
        20_000,
      );
      expect(r.delivered().size).toBe(expected);
    } finally {
      await r.close();
    }
  });

  it('delivers events whose transaction ids gain a digit, more than one chunk of them (numeric cursor order)', async () => {
    // The chaos run lost every event of a window where transaction ids went from 4 to 5 digits: the
    // dispatcher ordered by the text of the ids ('10000' before '9999') and moved its cursor past the rest.
    const r = await receiver(() => 200);
    try {
      const conn = s.orm.em.getConnection();
      // The endpoints of the tests above would get these events too (their receivers are closed).
      await conn.execute(`update webhook_endpoints set status = 'disabled' where tenant_id = ?`, [s.tenant.id]);
      const [{ xmin }] = await conn.execute<{ xmin: string }[]>(
        'select pg_snapshot_xmin(pg_current_snapshot())::text as xmin',
      );
      let digitStep = 10n ** BigInt(xmin.length - 1); // the largest power of ten at or below xmin…
      if (digitStep + 2n >= BigInt(xmin)) digitStep /= 10n; // …with room above it for the second transaction id
      const accountId = `acc_xact_${Date.now()}`;
      // 105 events of an older transaction (one digit fewer), then 105 of the next: more than a chunk of each.
      const rows = Array.from({ length: 210 }, (_, i) => [
        String(i < 105 ? digitStep - 1n : digitStep),
        accountId,
        i + 1,
      ]);
      await conn.execute(
        `insert into account_events (tenant_id, account_id, seq, kind, topic, frame_type, data, created_at, xact_id)
         select ?, r->>1, (r->>2)::int, 'test.xact-order', 'Test', 'Test', '{}'::jsonb, now(), (r->>0)::bigint
           from jsonb_array_elements(?::jsonb) r`,
        [s.tenant.id, JSON.stringify(rows)],
      );
      const created = (await s.call('POST', '/api/v1/webhooks', { token: op, body: { url: r.url } })).body;
      // Its cursor is moved back to just before the two transactions (registration starts it at now).
      await conn.execute('update webhook_endpoints set last_xact_id = ?, last_event_id = 0 where id = ?', [
        String(digitStep - 2n),
        created.id,
      ]);
      const ours = () => [...r.delivered()].filter((id) => id.startsWith(`${accountId}:`)).length;
      await waitFor(
        async () => ours(),
        (n) => n === 210,
        60_000,
      );
      expect(ours()).toBe(210);
      await s.call('POST', `/api/v1/webhooks/${created.id}/disable`, { token: op });
    } finally {
      await r.close();
    }
  });
});

describe('webhooks across a worker restart', () => {
  it('a delivery waiting in backoff when the worker stops is delivered after it restarts', async () => {
    const s = await startStack({
      env: { ...TIMING, WEBHOOK_INITIAL_BACKOFF_MS: '1500', WEBHOOK_MAX_BACKOFF_MS: '60000' },
    });
    let up = false;
    const r = await receiver(() => (up ? 200 : 500));
    try {
      const op = (await s.operator(['tenant:config'])).token;
      await s.call('POST', '/api/v1/webhooks', { token: op, body: { url: r.url, events: ['fill.executed'] } });
      await publish(s.orm, await recordedTick('ETH.PAPER', 0.5));
      const t = await s.trader();
      await s.call('POST', '/api/v1/oms/intents', {
        token: t.token,
        body: { venue: 'paper', symbol: 'ETH.PAPER', side: 'buy', type: 'market', qty: '0.01' },
      });
      await waitFor(
        async () => r.got.length,
        (n) => n >= 1,
        20_000,
      ); // first attempt failed; now in its 1.5 s backoff
      await s.stopWorker();
      up = true;
      await s.startWorker();
      await waitFor(
        async () => r.delivered().size,
        (n) => n === 1,
        20_000,
      );
      expect(r.got.map((g) => g.status)).toEqual([500, 200]);
    } finally {
      await r.close();
      await s.stop();
    }
  });
});
