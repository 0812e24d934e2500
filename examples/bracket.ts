/**
 * A bracket attached and moved, on the TypeScript client.
 *
 *   npm run dev                  # in another terminal: the stack and its demo trader (.data/dev.json)
 *   npx tsx examples/bracket.ts  # or with API_URL, TENANT, API_KEY, API_SECRET of a fullTrading trader
 *
 * Composes a market buy of 0.01 BTC.PAPER and attaches a bracket to it at once (`staged` until the parent fills,
 * then `armed`: a reduce-only take-profit 2 % over the mark and a stop 2 % under it), then moves both legs closer
 * (1 %), and reads the bracket back. Prices are computed as decimals and sent as JSON numbers, as the bracket
 * routes take them (docs/api.md §4.4); BTC.PAPER ticks at 1 USD.
 */
import { randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { exampleClient } from './client-from-env.js';

const { client } = await exampleClient();
const risk = client.risk({ topics: ['Order-Intent-Changed'] });
await risk.ready;
const { mark } = await client.get('/api/v1/market/quotes/{venue}/{symbol}', {
  params: { path: { venue: 'paper', symbol: 'BTC.PAPER' } },
});
/** `mark` × `factor`, whole USD, as the JSON number the bracket routes take. */
const price = (factor: string) => new Decimal(mark).times(factor).toDecimalPlaces(0).toNumber();

const clientOrderId = `example-${randomUUID()}`;
const filled = risk.next(
  (f) => f.type === 'Order-Intent-Update' && f.data.clientOrderId === clientOrderId && f.data.state === 'filled',
);
const parent = await client.post('/api/v1/oms/intents', {
  body: { venue: 'paper', symbol: 'BTC.PAPER', side: 'buy', type: 'market', qty: '0.01', clientOrderId },
});
const attached = await client.post('/api/v1/oms/brackets/attach', {
  body: { parentIntentId: parent.intentId, tpPrice: price('1.02'), slPrice: price('0.98') },
});
console.log(
  `bracket ${attached.bracketId} ${attached.state}: tp ${attached.tpPrice}, sl ${attached.slPrice} (mark ${mark})`,
);
await filled;

// Armed once the parent filled (the bracket workflow places the legs): poll its state.
const read = () =>
  client.get('/api/v1/oms/brackets/{bracketId}', { params: { path: { bracketId: attached.bracketId } } });
let bracket = await read();
for (let i = 0; bracket.state === 'staged' && i < 50; i++, bracket = await read())
  await new Promise((r) => setTimeout(r, 200));
console.log(`parent filled; bracket ${bracket.state}: legs tp ${bracket.legs.tp}, sl ${bracket.legs.sl}`);

const moved = await client.post('/api/v1/oms/brackets/modify', {
  body: { bracketId: attached.bracketId, tpPrice: price('1.01'), slPrice: price('0.99') },
});
console.log(`moved: tp ${moved.tpPrice}, sl ${moved.slPrice}; legs tp ${moved.legs.tp}, sl ${moved.legs.sl}`);
await risk.close();
