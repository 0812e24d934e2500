/**
 * A market order watched to its fill, on the TypeScript client.
 *
 *   npm run dev                       # in another terminal: the stack and its demo trader (.data/dev.json)
 *   npx tsx examples/market-order.ts  # or with API_URL, TENANT, API_KEY, API_SECRET of a fullTrading trader
 *
 * Subscribes to `/ws/risk` first (docs/api.md §6.3 rule 3), composes a market buy of 0.01 BTC.PAPER under its own
 * `clientOrderId`, prints each `Order-Intent-Update` until the intent ends, then its fills.
 */
import { randomUUID } from 'node:crypto';
import { exampleClient } from './client-from-env.js';

const { client } = await exampleClient();
const risk = client.risk({ topics: ['Order-Intent-Changed', 'Fills'] });
await risk.ready;

const clientOrderId = `example-${randomUUID()}`;
const frames = risk.frames(); // listening from here: the first frames may come before compose answers
const intent = await client.post('/api/v1/oms/intents', {
  body: { venue: 'paper', symbol: 'BTC.PAPER', side: 'buy', type: 'market', qty: '0.01', clientOrderId },
});
console.log(`composed ${intent.intentId} (${intent.state})`);

for await (const f of frames) {
  if (f.type === 'Fill' && 'fillId' in f.data && f.data.intentId === intent.intentId)
    console.log(`  fill ${f.data.qty} @ ${f.data.price} USD, fee ${f.data.feeUsd} USD (${f.data.liquidity})`);
  if (f.type !== 'Order-Intent-Update' || f.data.clientOrderId !== clientOrderId) continue;
  console.log(`  ${f.data.state} (${f.data.lastEvent})${f.data.avgFillPrice ? ` avg ${f.data.avgFillPrice} USD` : ''}`);
  if (['filled', 'canceled', 'rejected'].includes(f.data.state)) break;
}
await risk.close();
