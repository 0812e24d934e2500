/**
 * `VENUE_FEEDS=live` with Aster (worker/worker.ts): the worker publishes the `*.ASTER` marks from Aster's
 * market streams (here the simulator's `/ws`) next to the `*.HL` marks from Hyperliquid's socket, and with
 * the Aster simulator pricing from its own data (simulators/aster-prices.ts: the replayed Hyperliquid mid
 * +5 bps, a touch ±2 bps) the two venues' books differ: BTC.ASTER's stored mark is BTC.HL's + 5 bps
 * (within the two venues' ticks) and its touch is wider. Both simulators replay one fixed instant, so the
 * comparison does not depend on when the ticks land.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal, fmt } from '../../domain/decimal.js';
import { platformEm } from '../../db/orm.js';
import { readMark } from '../../db/marks.js';
import { findSymbol } from '../../domain/market/symbols.js';
import { HYPERLIQUID_SYMBOLS } from '../../domain/market/venues/hyperliquid.js';
import { startAsterSimulator, type AsterSimulator } from '../../simulators/aster.js';
import { ASTER_MARK_OFFSET } from '../../simulators/aster-prices.js';
import { startHyperliquidSimulator, type HyperliquidSimulator } from '../../simulators/hyperliquid.js';
import { replayedMarks } from '../../simulators/hyperliquid-prices.js';
import { startSimulators } from '../../simulators/index.js';
import { startStack, type Stack } from '../support/stack.js';

/** Polls `ok` every 20 ms until it answers a value (rejects after `ms`). */
async function until<T>(ok: () => Promise<T | null | undefined | false>, ms = 15_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await ok();
    if (v) return v;
    if (Date.now() - started > ms) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The mid of a `GET /fapi/v3/depth` answer's touch. */
const depthMid = (d: { bids: string[][]; asks: string[][] }) => new Decimal(d.bids[0][0]).plus(d.asks[0][0]).div(2);

describe('VENUE_FEEDS=live: the worker follows Aster market streams too', () => {
  // One replayed instant for both venues (a day into the recording's ping-pong).
  const at = () => 86_400_000;
  let hl: HyperliquidSimulator;
  let aster: AsterSimulator;
  let s: Stack;

  beforeAll(async () => {
    hl = await startHyperliquidSimulator({ markOf: replayedMarks(HYPERLIQUID_SYMBOLS, { now: at }), wsIntervalMs: 50 });
    aster = await startAsterSimulator({ now: at, wsIntervalMs: 50 });
    s = await startStack({
      env: { MARK_FEED: 'replay', VENUE_FEEDS: 'live', HYPERLIQUID_API_URL: hl.url, ASTER_API_URL: aster.url },
    });
  });
  afterAll(async () => {
    await s?.stop();
    await aster?.close();
    await hl?.close();
  });

  it('publishes *.ASTER marks and books from the socket; BTC.ASTER = BTC.HL + the documented offset, a wider touch', async () => {
    const em = () => platformEm(s.orm);
    const depth = (await (await fetch(`${aster.url}/fapi/v3/depth?symbol=BTCUSDT&limit=20`)).json()) as {
      bids: string[][];
      asks: string[][];
    };
    const a = await until(async () => {
      const t = await readMark(em(), 'aster', 'BTC.ASTER', 5_000);
      return t && t.mark.eq(depthMid(depth)) ? t : null;
    });
    expect({
      bids: a.book.bids.map((l) => [l.price, l.size].map(fmt)),
      asks: a.book.asks.map((l) => [l.price, l.size].map(fmt)),
    }).toStrictEqual({
      bids: depth.bids.map((l) => l.map((x) => fmt(new Decimal(x)))),
      asks: depth.asks.map((l) => l.map((x) => fmt(new Decimal(x)))),
    });
    for (const sym of ['ETH.ASTER', 'SOL.ASTER']) await until(() => readMark(em(), 'aster', sym, 5_000));
    expect(aster.wsConnections()).toBe(1);

    const h = await until(() => readMark(em(), 'hyperliquid', 'BTC.HL', 5_000));
    const tol = new Decimal(findSymbol('aster', 'BTC.ASTER')!.tickSize).plus(
      findSymbol('hyperliquid', 'BTC.HL')!.tickSize,
    );
    const expected = h.mark.mul(new Decimal(1).plus(ASTER_MARK_OFFSET));
    expect(a.mark.sub(expected).abs().lte(tol)).toBe(true);
    expect(a.mark.gt(h.mark)).toBe(true);
    // Aster's touch ≈ 4 bps wide, Hyperliquid's one tick.
    expect(a.ask.sub(a.bid).gt(h.ask.sub(h.bid))).toBe(true);
    expect(a.ask.sub(a.bid).div(a.mark).gte('0.0003')).toBe(true);
  });

  it('the dev simulators under VENUE_FEEDS=live price Aster from their own data, not from the store', async () => {
    const sims = await startSimulators(() => async () => '1', { ownPrices: true });
    try {
      const [mids, depth] = await Promise.all([
        fetch(`${sims.hyperliquid.url}/info`, { method: 'POST', body: JSON.stringify({ type: 'allMids' }) }).then(
          (r) => r.json() as Promise<Record<string, string>>,
        ),
        fetch(`${sims.aster.url}/fapi/v3/depth?symbol=BTCUSDT&limit=5`).then(
          (r) => r.json() as Promise<{ bids: string[][]; asks: string[][] }>,
        ),
      ]);
      const mid = depthMid(depth);
      expect(fmt(mid)).not.toBe('1');
      // About +5 bps over Hyperliquid's mid of the same moment (the replay may step between the two reads).
      const bps = mid.div(mids.BTC).sub(1).mul(10_000);
      expect(bps.sub(5).abs().lte(2)).toBe(true);
    } finally {
      await sims.stop();
    }
  });
});
