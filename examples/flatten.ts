/**
 * A flatten with its legs, on the TypeScript client.
 *
 *   npm run dev                  # in another terminal: the stack and its demo trader (.data/dev.json)
 *   npx tsx examples/flatten.ts  # or with API_URL, TENANT, API_KEY, API_SECRET of a fullTrading trader
 *
 * Opens a long of 0.02 BTC.PAPER (a market buy) and rests a buy limit 10 % under the mark, then flattens the account:
 * `POST /api/v1/oms/flatten` answers the plan (cancels first, then reduce-only market closes, one leg after the
 * other); each leg's intent is followed on `/ws/risk` to its end, then the positions are read back.
 */
import { randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import type { OrderIntentUpdateFrame, RiskFrame } from '@multivenue/client';
import { exampleClient } from './client-from-env.js';

const { client, accountId } = await exampleClient();
const risk = client.risk({ topics: ['Order-Intent-Changed'] });
await risk.ready;
/** Matches the frame of the end (filled, canceled, rejected) of the intent `intentId` or `clientOrderId`. */
const endOf =
  (id: { intentId?: string; clientOrderId?: string }) =>
  (f: RiskFrame): f is OrderIntentUpdateFrame =>
    f.type === 'Order-Intent-Update' &&
    ['filled', 'canceled', 'rejected'].includes(f.data.state) &&
    (id.intentId === undefined || f.data.intentId === id.intentId) &&
    (id.clientOrderId === undefined || f.data.clientOrderId === id.clientOrderId);

// A position and a working order to flatten.
const clientOrderId = `example-${randomUUID()}`;
const opened = risk.next(endOf({ clientOrderId }));
const buy = { venue: 'paper', symbol: 'BTC.PAPER', side: 'buy', qty: '0.02' } as const;
await client.post('/api/v1/oms/intents', { body: { ...buy, type: 'market', clientOrderId } });
await opened;
const { mark } = await client.get('/api/v1/market/quotes/{venue}/{symbol}', {
  params: { path: { venue: 'paper', symbol: 'BTC.PAPER' } },
});
const limit = new Decimal(mark).times('0.9').toDecimalPlaces(0).toString(); // BTC.PAPER ticks at 1 USD
const restingId = `example-${randomUUID()}`;
const rests = risk.next(
  (f) => f.type === 'Order-Intent-Update' && f.data.clientOrderId === restingId && f.data.orderStatus === 'open',
);
await client.post('/api/v1/oms/intents', { body: { ...buy, type: 'limit', price: limit, clientOrderId: restingId } });
await rests; // working (dispatched, resting): the flatten's plan includes it
console.log(`long 0.02 BTC.PAPER, and a buy limit resting at ${limit} USD`);

// The flatten and its legs, each to its end (a leg's frames may come before the plan's answer: `recent`).
const plan = await client.post('/api/v1/oms/flatten', { body: { accountId } });
console.log(`flatten ${plan.batchId}: ${plan.legs.length} legs`);
for (const leg of plan.legs) {
  const end = await risk.next(endOf({ intentId: leg.intentId }), { recent: true });
  const fill = end.data.avgFillPrice ? ` at ${end.data.avgFillPrice} USD` : '';
  const what = [leg.action, leg.symbol, leg.side, leg.qty].filter(Boolean).join(' ');
  console.log(`  leg ${leg.n} ${what} → ${end.data.state}${fill}`);
}

const { positions } = await client.get('/api/v1/accounts/{id}/positions', { params: { path: { id: accountId } } });
console.log(`open positions now: ${positions.filter((p) => p.side !== 'flat').length}`);
await risk.close();
