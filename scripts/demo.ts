/**
 * `npm run demo`: the main job against the running stack (`npm run dev`), narrated:
 * mint a bearer, bootstrap, open /ws/risk, subscribe, compose a market buy of BTC on `paper`,
 * print every Order-Intent-Update until `filled`, then the position, the fills and the account state.
 */
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import type { DevJson } from './dev.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const file = path.join(ROOT, '.data/dev.json');
if (!existsSync(file)) {
  console.error('demo: no .data/dev.json — start the stack first with `npm run dev`');
  process.exit(1);
}
const dev: DevJson = JSON.parse(readFileSync(file, 'utf8'));
const step = (n: number, text: string) => console.log(`\n${n}. ${text}`);

/** An Order-Intent-Update frame's `data` (docs/api.md), the fields the demo prints. */
interface IntentUpdate {
  intentId: string;
  state: string;
  lastEvent: string;
  venueOrderId?: string | null;
  avgFillPrice?: string | null;
  rejectReason?: string | null;
}

/** A /ws/risk frame, the fields the demo reads: `accountId` on Authenticated, `ok` on a refusal, `seq` and `data` on Order-Intent-Update. */
interface Frame {
  type: string;
  ok?: boolean;
  accountId?: string;
  seq?: number;
  data: IntentUpdate;
}

/** Calls the api; resolves its JSON answer as `T` (the route's documented shape), throws on a non-2xx status. */
async function api<T>(method: string, p: string, token?: string, body?: unknown): Promise<T> {
  const res = await fetch(`${dev.baseUrl}${p}`, {
    method,
    headers: {
      'x-tenant-slug': dev.tenantSlug,
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json: unknown = await res.json();
  if (!res.ok) throw new Error(`${method} ${p} → ${res.status} ${JSON.stringify(json)}`);
  return json as T;
}

step(1, `Mint a bearer: POST /api/auth/api-token with the demo trader's key`);
const { token, tier, expiresAt } = await api<{ token: string; tier: string; expiresAt: string }>(
  'POST',
  '/api/auth/api-token',
  undefined,
  { apiKey: dev.trader.apiKey, apiSecret: dev.trader.apiSecret },
);
console.log(`   tier ${tier}, expires ${expiresAt}`);

step(2, 'Bootstrap a /ws/risk handshake token: POST /api/auth/bootstrap');
const boot = await api<{ data: { riskEngineWss: { endpoint: string; token: string; expiresAt: string } } }>(
  'POST',
  '/api/auth/bootstrap',
  token,
);
console.log(`   ${boot.data.riskEngineWss.endpoint} (single use, until ${boot.data.riskEngineWss.expiresAt})`);

step(3, 'Open /ws/risk, Authenticate, Subscribe');
const ws = new WebSocket(boot.data.riskEngineWss.endpoint, { headers: { 'x-tenant-slug': dev.tenantSlug } });
const frames: Frame[] = [];
const waiters: ((f: Frame) => void)[] = [];
ws.on('message', (raw) => {
  const f = JSON.parse(String(raw)) as Frame;
  frames.push(f);
  waiters.forEach((w) => w(f));
});
await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
const until = (pred: (f: Frame) => boolean) =>
  new Promise<Frame>((resolve, reject) => {
    const t = setTimeout(
      () => reject(new Error('demo: no answer on /ws/risk within 20 s — is the worker running?')),
      20_000,
    );
    const check = (f: Frame) => pred(f) && (clearTimeout(t), resolve(f));
    frames.forEach(check);
    waiters.push(check);
  });
ws.send(JSON.stringify({ type: 'Authenticate', token: boot.data.riskEngineWss.token }));
const auth = await until((f) => f.type === 'Authenticated' || f.ok === false);
if (auth.type !== 'Authenticated') throw new Error(`authenticate refused: ${JSON.stringify(auth)}`);
console.log(`   Authenticated for account ${auth.accountId}`);
ws.send(JSON.stringify({ type: 'Subscribe', topics: ['Order-Intent-Changed', 'Position-Changed', 'Fills'] }));
await until((f) => f.type === 'Result');
console.log('   subscribed to Order-Intent-Changed, Position-Changed, Fills');

step(4, 'Compose a market buy of 0.01 BTC.PAPER: POST /api/v1/oms/intents');
const intent = await api<{ intentId: string; state: string }>('POST', '/api/v1/oms/intents', token, {
  venue: 'paper',
  symbol: 'BTC.PAPER',
  side: 'buy',
  type: 'market',
  qty: '0.01',
  clientOrderId: `demo-${Date.now()}`,
});
console.log(`   intentId ${intent.intentId} (${intent.state})`);

step(5, 'Order-Intent-Update frames until filled');
waiters.push((f) => {
  if (f.type === 'Order-Intent-Update' && f.data.intentId === intent.intentId) {
    console.log(
      `   seq ${f.seq}  ${f.data.state.padEnd(24)} event ${f.data.lastEvent}${f.data.venueOrderId ? `  venueOrderId ${f.data.venueOrderId}` : ''}${f.data.avgFillPrice ? `  avg ${f.data.avgFillPrice}` : ''}`,
    );
  }
});
frames
  .filter((f) => f.type === 'Order-Intent-Update' && f.data.intentId === intent.intentId)
  .forEach((f) => waiters.at(-1)!(f));
const done = await until(
  (f) =>
    f.type === 'Order-Intent-Update' &&
    f.data.intentId === intent.intentId &&
    ['filled', 'canceled', 'rejected'].includes(f.data.state),
);
if (done.data.state !== 'filled') console.log(`   ended ${done.data.state}: ${done.data.rejectReason}`);

step(6, 'Position');
const { positions } = await api<{
  positions: {
    symbol: string;
    side: string;
    qty: string;
    avgEntryPrice: string;
    markPrice: string;
    unrealizedPnlUsd: string;
  }[];
}>('GET', `/api/v1/accounts/${dev.trader.accountId}/positions`, token);
for (const p of positions)
  console.log(
    `   ${p.symbol} ${p.side} ${p.qty} @ ${p.avgEntryPrice}  mark ${p.markPrice}  uPnL ${p.unrealizedPnlUsd} USD`,
  );

step(7, 'Fills of this intent');
const { fills } = await api<{
  fills: {
    fillId: string;
    intentId: string;
    side: string;
    qty: string;
    price: string;
    feeUsd: string;
    liquidity: string;
  }[];
}>('GET', `/api/v1/accounts/${dev.trader.accountId}/fills?limit=50`, token);
for (const f of fills.filter((x) => x.intentId === intent.intentId))
  console.log(`   ${f.fillId}  ${f.side} ${f.qty} @ ${f.price}  fee ${f.feeUsd} USD  (${f.liquidity})`);

step(8, 'Account state (perVenue)');
const state = await api<{
  perVenue: {
    venue: string;
    equityUsd: string;
    balanceUsd: string;
    marginUsedUsd: string;
    marginAvailableUsd: string;
    unrealizedPnlUsd: string;
  }[];
}>('GET', `/api/v1/accounts/${dev.trader.accountId}/state`, token);
for (const v of state.perVenue)
  console.log(
    `   ${v.venue}: equity ${v.equityUsd}  balance ${v.balanceUsd}  margin used ${v.marginUsedUsd}  available ${v.marginAvailableUsd}  uPnL ${v.unrealizedPnlUsd}`,
  );
console.log(
  `\nInspect the workflow: npm run inspect -- ${intent.intentId}   (or the Temporal UI: ${dev.temporalUiUrl})`,
);
ws.close();
