/**
 * The offline prediction-market marks: one recorded day per 10 s of wall clock (looping), mark
 * clamped to [tick, 1 − tick], one-level book at mark ∓ half a tick; the feed publishes them to
 * the mark store.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Decimal } from '../../domain/decimal.js';
import { openOrm, platformEm } from '../../db/orm.js';
import { readMark } from '../../db/marks.js';
import { loadPolymarketMarkets } from '../../infra/recorded-polymarket.js';
import { predictionTick, startPredictionMarkFeed } from '../../modules/market/feeds/prediction-marks.js';
import { DAY_MS } from '../../domain/market/prediction-replay.js';
import { POLYMARKET_SYMBOLS } from '../../domain/market/venues/polymarket.js';
import type { SymbolSpec } from '../../domain/market/symbols.js';

const spec = POLYMARKET_SYMBOLS[0];

async function historyOf(token: string) {
  for (const m of await loadPolymarketMarkets()) for (const o of m.outcomes) if (o.tokenId === token) return o.history;
  throw new Error('token not recorded');
}

describe('predictionTick', () => {
  it('steps one recorded day per 10 s and loops over the recording', async () => {
    const history = await historyOf(spec.sourceCoin);
    const n = history.length;
    const t0 = 1_700_000_000_000 - (1_700_000_000_000 % (DAY_MS * n)); // day 0 of a loop
    const clamp = (p: Decimal) => Decimal.min(Decimal.max(p, '0.01'), '0.99').toString();
    for (const day of [0, 1, 2, n - 1]) {
      const tick = await predictionTick(spec, t0 + day * DAY_MS + 9_999);
      expect(tick.mark.toString()).toBe(clamp(history[day].price));
    }
    expect((await predictionTick(spec, t0 + n * DAY_MS)).mark.toString()).toBe(
      (await predictionTick(spec, t0)).mark.toString(),
    );
    // within a day the mark does not move
    expect(
      (await predictionTick(spec, t0 + 3 * DAY_MS)).mark.eq((await predictionTick(spec, t0 + 3 * DAY_MS + 9_000)).mark),
    ).toBe(true);
  });

  it('keeps bid and ask half a tick either side, strictly inside (0, 1), for every recorded day', async () => {
    const n = (await historyOf(spec.sourceCoin)).length;
    for (let day = 0; day < n; day++) {
      const t = await predictionTick(spec, day * DAY_MS);
      expect(t).toMatchObject({ venue: 'polymarket', symbol: spec.symbol, ts: day * DAY_MS });
      expect(t.ask.sub(t.bid).toString()).toBe('0.01');
      expect(t.bid.gt(0) && t.ask.lt(1)).toBe(true);
      expect(t.mark.eq(t.bid.add(t.ask).div(2))).toBe(true);
      expect(t.book.bids[0].price.eq(t.bid) && t.book.asks[0].price.eq(t.ask)).toBe(true);
    }
  });

  it('replays a Kalshi symbol’s sourceCoin as given, and refuses unknown tokens and perps', async () => {
    const kx: SymbolSpec = { ...spec, symbol: 'TEST-YES.KX', venue: 'kalshi', venueSymbol: 'TEST:yes' };
    const now = Date.now();
    const a = await predictionTick(kx, now);
    expect(a).toMatchObject({ venue: 'kalshi', symbol: 'TEST-YES.KX' });
    expect(a.mark.eq((await predictionTick(spec, now)).mark)).toBe(true);
    await expect(predictionTick({ ...spec, sourceCoin: '1' }, now)).rejects.toThrow(/no recorded prices/);
    await expect(predictionTick({ ...spec, assetClass: 'perp' }, now)).rejects.toThrow(/not a prediction/);
  });
});

describe('startPredictionMarkFeed', () => {
  let orm: MikroORM;
  beforeAll(async () => (orm = await openOrm(inject('databaseUrl'))));
  afterAll(async () => orm?.close());

  it('publishes every symbol’s tick to the mark store, and reports errors without stopping', async () => {
    const errors: unknown[] = [];
    const bad: SymbolSpec = { ...spec, symbol: 'BROKEN.PM', sourceCoin: '1' };
    const feed = startPredictionMarkFeed({
      orm,
      symbols: [POLYMARKET_SYMBOLS[2], POLYMARKET_SYMBOLS[3], bad],
      intervalMs: 100,
      onError: (e) => errors.push(e),
    });
    await new Promise((r) => setTimeout(r, 350));
    await feed.stop();
    for (const s of [POLYMARKET_SYMBOLS[2], POLYMARKET_SYMBOLS[3]]) {
      const m = await readMark(platformEm(orm), 'polymarket', s.symbol, 5_000);
      expect(m, s.symbol).not.toBeNull();
      expect(m!.mark.eq((await predictionTick(s, m!.ts)).mark)).toBe(true);
    }
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(await readMark(platformEm(orm), 'polymarket', 'BROKEN.PM', 60_000)).toBeNull();
  });
});
