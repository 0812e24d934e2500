/**
 * Loads the recorded Hyperliquid funding rates (`<dataDir>/hyperliquid_candles/<COIN>_perp_1h-funding_rate.csv`,
 * `timestamp_ms,iso_utc,funding_rate`) as decimals straight from their text. Memoised per file.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Decimal } from '../../../domain/decimal.js';
import type { RecordedRate } from '../../../domain/market/funding.js';
import { marketDataDir } from './recorded.js';

const cache = new Map<string, Promise<RecordedRate[]>>();

/** The recorded funding rates of a coin (`BTC`, `ETH`, `SOL`), ascending by time. @throws Error when the file is missing. */
export function loadFundingRates(coin: string, dataDir: string = marketDataDir()): Promise<RecordedRate[]> {
  const file = path.join(path.resolve(dataDir), 'hyperliquid_candles', `${coin}_perp_1h-funding_rate.csv`);
  let p = cache.get(file);
  if (!p) {
    p = readFile(file, 'utf8').then((text) =>
      text
        .trim()
        .split(/\r?\n/)
        .slice(1)
        .map((line) => {
          const [ms, , rate] = line.split(',');
          return { ts: Number(ms), rate: new Decimal(rate) };
        })
        .sort((a, b) => a.ts - b.ts),
    );
    cache.set(file, p);
    p.catch(() => cache.delete(file));
  }
  return p;
}
