/** The replay of recorded Hyperliquid marks: seamless ping-pong loop, marks and re-centred books. */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../domain/decimal.js';
import { replayTime, tickAt } from '../../domain/market/replay.js';
import { PAPER_SYMBOLS } from '../../domain/market/symbols.js';
import { loadRecordedMarket } from '../../activities/market/recorded.js';
import { ReplayMarkFeed } from '../../activities/market/mark-feed.js';

describe('recorded market replay', () => {
  it('loops seamlessly: forward, then backward, never jumping, period 2 × span', () => {
    const [start, end] = [1_000, 11_000];
    expect(replayTime(0, 0, start, end)).toBe(1_000);
    expect(replayTime(9_999, 0, start, end)).toBe(10_999);
    expect(replayTime(10_001, 0, start, end)).toBe(10_999); // turned around at the end
    expect(replayTime(19_999, 0, start, end)).toBe(1_001);
    expect(replayTime(20_000, 0, start, end)).toBe(1_000);
    for (let t = 0; t < 40_000; t += 7) expect(Math.abs(replayTime(t + 7, 0, start, end) - replayTime(t, 0, start, end))).toBeLessThanOrEqual(7);
  });

  it('the first BTC mark is the mid of the first recorded best bid and offer', async () => {
    const m = await loadRecordedMarket('BTC');
    const t = tickAt(m, m.startMs, 'paper', 'BTC.PAPER', 123, new Decimal(1));
    expect([t.bid.toFixed(), t.ask.toFixed(), t.mark.toFixed(), t.ts]).toEqual(['111038', '111039', '111038.5', 123]);
  });

  it('re-centres the recorded book on the mark, sizes untouched, at every sampled instant', async () => {
    for (const spec of PAPER_SYMBOLS) {
      const m = await loadRecordedMarket(spec.sourceCoin);
      for (let i = 0; i <= 20; i++) {
        const at = m.startMs + Math.round(((m.endMs - m.startMs) * i) / 20);
        const t = tickAt(m, at, 'paper', spec.symbol, 0, new Decimal(spec.tickSize));
        expect(t.book.bids[0].price.lte(t.mark), `${spec.symbol} bid ≤ mark`).toBe(true);
        expect(t.book.asks[0].price.gte(t.mark), `${spec.symbol} ask ≥ mark`).toBe(true);
        expect(t.book.bids[0].price.lt(t.book.asks[0].price)).toBe(true);
        expect(t.book.asks[0].price.mod(spec.tickSize).isZero(), `${spec.symbol} prices stay on the tick`).toBe(true);
      }
    }
  });

  it('tick sizes of the symbol table match the recorded prices', async () => {
    for (const spec of PAPER_SYMBOLS) {
      const m = await loadRecordedMarket(spec.sourceCoin);
      expect(m.bbo.every((q) => q.bid.mod(spec.tickSize).isZero() && q.ask.mod(spec.tickSize).isZero()), spec.symbol).toBe(true);
    }
  });

  it('the feed emits a tick per symbol, the same for the same wall time in any process', async () => {
    const seen: string[] = [];
    const now = () => 1_800_000_000_000;
    const feed = new ReplayMarkFeed({ symbols: PAPER_SYMBOLS, intervalMs: 10_000, now, onTick: (t) => void seen.push(`${t.symbol} ${t.mark.toFixed()}`) });
    await feed.start();
    await feed.stop();
    const twin = new ReplayMarkFeed({ symbols: PAPER_SYMBOLS, now, onTick: () => undefined });
    await twin.start();
    await twin.stop();
    expect(seen).toHaveLength(3);
    expect(seen[0]).toBe(`BTC.PAPER ${twin.tickNow('BTC.PAPER').mark.toFixed()}`);
  });
});
