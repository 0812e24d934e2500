/**
 * `npm run demo`: the main job against the running stack (`npm run dev`), narrated, on the TypeScript client
 * (clients/typescript/, README "TypeScript client"): mint a bearer, open /ws/risk (bootstrap, Authenticate,
 * Subscribe), compose a market buy of BTC on `paper`, print every Order-Intent-Update until `filled`, then the
 * position, the fills and the account state.
 */
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { createClient, type OrderIntentUpdateFrame, type RiskFrame } from '@multivenue/client';
import type { DevJson } from './dev.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const file = path.join(ROOT, '.data/dev.json');
if (!existsSync(file)) {
  console.error('demo: no .data/dev.json — start the stack first with `npm run dev`');
  process.exit(1);
}
const dev: DevJson = JSON.parse(readFileSync(file, 'utf8'));
const step = (n: number, text: string) => console.log(`\n${n}. ${text}`);
const accountId = dev.trader.accountId;

const client = createClient({
  baseUrl: dev.baseUrl,
  tenantSlug: dev.tenantSlug,
  apiKey: dev.trader.apiKey,
  apiSecret: dev.trader.apiSecret,
});

step(1, `Mint a bearer: POST /api/auth/api-token with the demo trader's key`);
const { tier, expiresAt } = await client.tokens.mint();
console.log(`   tier ${tier}, expires ${expiresAt}`);

step(2, 'Open /ws/risk: POST /api/auth/bootstrap (single-use token), Authenticate, Subscribe');
const risk = client.risk({ topics: ['Order-Intent-Changed', 'Position-Changed', 'Fills'] });
risk.on('resync', ({ reason }) => console.log(`   (socket resynced: ${reason})`));
await risk.ready;
console.log('   Authenticated; subscribed to Order-Intent-Changed, Position-Changed, Fills');

step(3, 'Compose a market buy of 0.01 BTC.PAPER: POST /api/v1/oms/intents (with an Idempotency-Key)');
const clientOrderId = `demo-${Date.now()}`;
const isOurs = (f: RiskFrame): f is OrderIntentUpdateFrame =>
  f.type === 'Order-Intent-Update' && f.data.clientOrderId === clientOrderId;
const frames = risk.frames();
const printed = (async () => {
  for await (const f of frames) {
    if (!isOurs(f)) continue;
    const d = f.data;
    console.log(
      `   seq ${f.seq}  ${d.state.padEnd(24)} event ${d.lastEvent}${d.venueOrderId ? `  venueOrderId ${d.venueOrderId}` : ''}${d.avgFillPrice ? `  avg ${d.avgFillPrice}` : ''}`,
    );
    if (['filled', 'canceled', 'rejected'].includes(d.state)) return f;
  }
  throw new Error('demo: /ws/risk closed before the order ended');
})();
const intent = await client.post('/api/v1/oms/intents', {
  body: { venue: 'paper', symbol: 'BTC.PAPER', side: 'buy', type: 'market', qty: '0.01', clientOrderId },
});
console.log(`   intentId ${intent.intentId} (${intent.state})`);

step(4, 'Order-Intent-Update frames until filled');
const timeout = setTimeout(() => {
  console.error('demo: the order did not end within 20 s — is the worker running?');
  process.exit(1);
}, 20_000);
const done = await printed;
clearTimeout(timeout);
if (done.data.state !== 'filled') console.log(`   ended ${done.data.state}: ${done.data.rejectReason}`);

step(5, 'Position');
const { positions } = await client.get('/api/v1/accounts/{id}/positions', { params: { path: { id: accountId } } });
for (const p of positions)
  console.log(
    `   ${p.symbol} ${p.side} ${p.qty} @ ${p.avgEntryPrice}  mark ${p.markPrice}  uPnL ${p.unrealizedPnlUsd} USD`,
  );

step(6, 'Fills of this intent');
const { fills } = await client.get('/api/v1/accounts/{id}/fills', {
  params: { path: { id: accountId }, query: { limit: 50 } },
});
for (const f of fills.filter((x) => x.intentId === intent.intentId))
  console.log(`   ${f.fillId}  ${f.side} ${f.qty} @ ${f.price}  fee ${f.feeUsd} USD  (${f.liquidity})`);

step(7, 'Account state (perVenue)');
const state = await client.get('/api/v1/accounts/{id}/state', { params: { path: { id: accountId } } });
for (const v of state.perVenue)
  console.log(
    `   ${v.venue}: equity ${v.equityUsd}  balance ${v.balanceUsd}  margin used ${v.marginUsedUsd}  available ${v.marginAvailableUsd}  uPnL ${v.unrealizedPnlUsd}`,
  );
console.log(
  `\nInspect the workflow: npm run inspect -- ${intent.intentId}   (or the Temporal UI: ${dev.temporalUiUrl})`,
);
await risk.close();
