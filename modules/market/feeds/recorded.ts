/**
 * Loads the recorded Hyperliquid ticks (`<dataDir>/hyperliquid_ticks/{prices,orderbooks,trades}_<COIN>.csv`,
 * see data/recorded/README.md) into a RecordedMarket: best bid/offer, 20-level L2 books and trade prints,
 * every price and size parsed straight from its CSV text into a Decimal (never a JS float).
 * The data directory is `MARKET_DATA_DIR` when set, else `<repo>/data/recorded`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Decimal } from '../../../domain/decimal.js';
import type { RecordedMarket } from '../../../domain/market/replay.js';
import type { BookLevel } from '../../../domain/market/types.js';
import { loadMarketDataDir } from '../../../config.js';

/**
 * The configured market data directory (absolute path): env `MARKET_DATA_DIR` (resolved against
 * the current directory) when set and non-empty, else `<repo>/data/recorded` (the recorded data kept in the repository).
 * It holds `hyperliquid_ticks/`. Read through config.ts's schema at each call.
 */
export function marketDataDir(): string {
  return loadMarketDataDir();
}

/** A parsed CSV: its header, column index by header name (throws when absent), and the data rows split on commas. */
interface Csv {
  file: string;
  header: string[];
  col: (name: string) => number;
  rows: string[][];
}

async function readCsv(file: string): Promise<Csv> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'not found' : `unreadable (${code ?? String(err)})`;
    throw new Error(
      `recorded market data ${why}: ${file}. Set MARKET_DATA_DIR to the directory holding hyperliquid_ticks/ (the configured one is ${marketDataDir()}; unset, it is <repo>/data/recorded).`,
      { cause: err },
    );
  }
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines.length < 2) throw new Error(`recorded market data file has no rows: ${file}`);
  const header = lines[0].split(',').map((h) => h.trim());
  const col = (name: string) => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`recorded market data file ${file} has no column ${name}`);
    return i;
  };
  return { file, header, col, rows: lines.slice(1).map((l) => l.split(',')) };
}

/** Exchange timestamp (Unix ms) of a row, validated. */
function millis(csv: Csv, row: string[], i: number): number {
  const ms = Number(row[i]);
  if (!Number.isSafeInteger(ms)) throw new Error(`bad exchange_timestamp ${JSON.stringify(row[i])} in ${csv.file}`);
  return ms;
}

/** Best bid/offer series: rows sharing an exchange_timestamp pair up; a side that did not change carries forward. */
function parseBbo(csv: Csv): RecordedMarket['bbo'] {
  const [iPrice, iSide, iTs] = [csv.col('price'), csv.col('side'), csv.col('exchange_timestamp')];
  const rows = csv.rows.map((r) => ({ ts: millis(csv, r, iTs), side: r[iSide], price: r[iPrice] }));
  rows.sort((a, b) => a.ts - b.ts); // stable: file order kept within one timestamp
  const out: RecordedMarket['bbo'] = [];
  let bid: Decimal | undefined;
  let ask: Decimal | undefined;
  for (const r of rows) {
    if (r.side === 'bid') bid = new Decimal(r.price);
    else if (r.side === 'ask') ask = new Decimal(r.price);
    else throw new Error(`bad side ${JSON.stringify(r.side)} in ${csv.file}`);
    if (!bid || !ask) continue;
    const last = out.at(-1);
    if (last?.ts === r.ts) out[out.length - 1] = { ts: r.ts, bid, ask };
    else out.push({ ts: r.ts, bid, ask });
  }
  return out;
}

/** L2 book series: `bid_price_i, bid_size_i, ask_price_i, ask_size_i` for every level present (empty cells skipped). */
function parseBooks(csv: Csv): RecordedMarket['books'] {
  const iTs = csv.col('exchange_timestamp');
  const levels: { bp: number; bs: number; ap: number; as: number }[] = [];
  for (let i = 0; ; i++) {
    const names = [`bid_price_${i}`, `bid_size_${i}`, `ask_price_${i}`, `ask_size_${i}`];
    if (!names.every((n) => csv.header.includes(n))) break;
    const [bp, bs, ap, as] = names.map((n) => csv.col(n));
    levels.push({ bp, bs, ap, as });
  }
  if (levels.length === 0) throw new Error(`recorded book file ${csv.file} has no bid_price_0..ask_size_0 columns`);
  const books = csv.rows.map((r) => {
    const bids: BookLevel[] = [];
    const asks: BookLevel[] = [];
    for (const l of levels) {
      if (r[l.bp] && r[l.bs]) bids.push({ price: new Decimal(r[l.bp]), size: new Decimal(r[l.bs]) });
      if (r[l.ap] && r[l.as]) asks.push({ price: new Decimal(r[l.ap]), size: new Decimal(r[l.as]) });
    }
    return { ts: millis(csv, r, iTs), book: { bids, asks } };
  });
  return books.sort((a, b) => a.ts - b.ts); // stable: of two snapshots at one ms, the later in the file wins
}

/** Trade prints, ascending by exchange time: `buy`/`sell` is the aggressor side. */
function parseTrades(csv: Csv): NonNullable<RecordedMarket['trades']> {
  const [iPrice, iSize, iSide, iId, iTs] = [
    csv.col('price'),
    csv.col('size'),
    csv.col('side'),
    csv.col('trade_id'),
    csv.col('exchange_timestamp'),
  ];
  const trades = csv.rows.map((r): NonNullable<RecordedMarket['trades']>[number] => {
    const side = r[iSide];
    if (side !== 'buy' && side !== 'sell') throw new Error(`bad side ${JSON.stringify(side)} in ${csv.file}`);
    return {
      ts: millis(csv, r, iTs),
      id: r[iId],
      price: new Decimal(r[iPrice]),
      size: new Decimal(r[iSize]),
      side: side,
    };
  });
  return trades.sort((a, b) => a.ts - b.ts);
}

async function load(coin: string, dataDir: string): Promise<RecordedMarket> {
  const dir = path.join(dataDir, 'hyperliquid_ticks');
  const [prices, orderbooks, tradeFile] = await Promise.all([
    readCsv(path.join(dir, `prices_${coin}.csv`)),
    readCsv(path.join(dir, `orderbooks_${coin}.csv`)),
    readCsv(path.join(dir, `trades_${coin}.csv`)),
  ]);
  const bbo = parseBbo(prices);
  const books = parseBooks(orderbooks);
  const trades = parseTrades(tradeFile);
  if (bbo.length === 0) throw new Error(`no complete best bid/offer in ${prices.file}`);
  if (books.length === 0) throw new Error(`no book in ${orderbooks.file}`);
  const startMs = Math.max(bbo[0].ts, books[0].ts);
  const endMs = Math.min(bbo.at(-1)!.ts, books.at(-1)!.ts);
  if (endMs <= startMs) throw new Error(`recorded ${coin} prices and books do not overlap in time (${dir})`);
  return { coin, startMs, endMs, bbo, books, trades };
}

const cache = new Map<string, Promise<RecordedMarket>>();

/**
 * One coin's recording (`BTC`, `ETH`, `SOL`): bbo and books ascending by exchange time (Unix ms),
 * prices USD and sizes contracts as Decimals; `startMs`..`endMs` is the span both cover.
 * Memoised per (absolute dataDir, coin); a failed load is forgotten so a later call retries.
 * @param dataDir directory holding `hyperliquid_ticks/`; default {@link marketDataDir}().
 * @throws Error naming the file and `MARKET_DATA_DIR` when a CSV is missing or unreadable.
 */
export function loadRecordedMarket(coin: string, dataDir: string = marketDataDir()): Promise<RecordedMarket> {
  const dir = path.resolve(dataDir);
  const key = `${dir}\u0000${coin}`;
  let p = cache.get(key);
  if (!p) {
    p = load(coin, dir);
    cache.set(key, p);
    p.catch(() => cache.delete(key));
  }
  return p;
}
