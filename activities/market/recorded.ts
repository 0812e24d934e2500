/**
 * Loads the recorded Hyperliquid ticks of `../shared/data/hyperliquid_ticks` (override with
 * `MARKET_DATA_DIR`): best bid/offer rows and 20-level L2 books, decimals parsed from their text.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Decimal } from '../../domain/decimal.js';
import type { BookLevel } from '../../domain/market/types.js';
import type { RecordedMarket } from '../../domain/market/replay.js';

/** The market data directory: `MARKET_DATA_DIR`, else `<repo>/../shared/data`. */
export function marketDataDir(): string {
  return process.env.MARKET_DATA_DIR ?? path.resolve(import.meta.dirname, '../../../shared/data');
}

async function rows(file: string): Promise<string[][]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new Error(`recorded market data not found at ${file}; set MARKET_DATA_DIR to the folder holding hyperliquid_ticks/`);
  }
  return text.trim().split(/\r?\n/).slice(1).map((l) => l.split(','));
}

const cache = new Map<string, Promise<RecordedMarket>>();

/** Parses and memoises one coin's recording (BTC, ETH, SOL). */
export function loadRecordedMarket(coin: string, dataDir = marketDataDir()): Promise<RecordedMarket> {
  const key = `${dataDir}|${coin}`;
  if (!cache.has(key)) cache.set(key, load(coin, dataDir));
  return cache.get(key)!;
}

async function load(coin: string, dataDir: string): Promise<RecordedMarket> {
  const dir = path.join(dataDir, 'hyperliquid_ticks');
  const bbo: RecordedMarket['bbo'] = [];
  let bid: Decimal | undefined;
  let ask: Decimal | undefined;
  for (const [, price, , side, ts] of await rows(path.join(dir, `prices_${coin}.csv`))) {
    if (side === 'bid') bid = new Decimal(price);
    else ask = new Decimal(price);
    if (!bid || !ask) continue;
    const t = Number(ts);
    if (bbo.at(-1)?.ts === t) bbo[bbo.length - 1] = { ts: t, bid, ask };
    else bbo.push({ ts: t, bid, ask });
  }
  const books = (await rows(path.join(dir, `orderbooks_${coin}.csv`))).map((r) => {
    const bids: BookLevel[] = [];
    const asks: BookLevel[] = [];
    for (let i = 0; i < 20; i++) {
      const [bp, bs, ap, as] = r.slice(3 + i * 4, 7 + i * 4);
      if (bp && bs) bids.push({ price: new Decimal(bp), size: new Decimal(bs) });
      if (ap && as) asks.push({ price: new Decimal(ap), size: new Decimal(as) });
    }
    return { ts: Number(r[2]), book: { bids, asks } };
  });
  bbo.sort((a, b) => a.ts - b.ts);
  books.sort((a, b) => a.ts - b.ts);
  return { coin, startMs: Math.max(bbo[0].ts, books[0].ts), endMs: Math.min(bbo.at(-1)!.ts, books.at(-1)!.ts), bbo, books };
}
