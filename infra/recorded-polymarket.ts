/**
 * The recorded Polymarket election markets (`<dataDir>/polymarket_election_top20/`, see
 * data/recorded/README.md): 20 closed binary markets with daily CLOB prices of both outcome
 * tokens. Prices are probabilities (0 to 1, the USDC price of a share paying 1 USDC), parsed from
 * their JSON source text straight into decimals (never a JS float). Memoised per data directory
 * (default `MARKET_DATA_DIR`, config.ts). Read by the api (`/market/polymarket/markets`, candles) and
 * the worker's prediction mark feed (modules/market/feeds/prediction-marks.ts).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { Decimal } from '../domain/decimal.js';
import { loadMarketDataDir } from '../config.js';

/** One outcome of a market and its symbol `<marketId>-<OUTCOME>.PM` (e.g. `511754-YES.PM`). */
export interface PolymarketOutcome {
  outcome: string;
  symbol: string;
  tokenId: string;
  /** Daily prices, probability units, ascending by date (`YYYY-MM-DD`, UTC). */
  history: { date: string; price: Decimal }[];
}

/** One recorded market. `totalVolumeUsd` is the venue's lifetime volume, USDC. */
export interface PolymarketMarket {
  marketId: string;
  eventTitle: string;
  question: string;
  startDate: string | null;
  endDate: string | null;
  closedTime: string | null;
  totalVolumeUsd: string | null;
  winningOutcome: string | null;
  outcomes: PolymarketOutcome[];
}

/** Python-style list text `['Yes', 'No']` → `['Yes', 'No']`. */
const pyList = (text: string): string[] => [...text.matchAll(/'([^']*)'/g)].map((m) => m[1]);
const orNull = (s: string | undefined) => (s && s.trim() ? s.trim() : null);

async function load(dir: string): Promise<PolymarketMarket[]> {
  const base = path.join(dir, 'polymarket_election_top20');
  const rows = parse<Record<string, string>>(
    await readFile(path.join(base, 'polymarket_election_markets_top20.csv'), 'utf8'),
    { columns: true, skip_empty_lines: true },
  );
  type Point = { token_id: string; date: string; price: Decimal };
  const history = JSON.parse(
    await readFile(path.join(base, 'polymarket_price_history_top20.json'), 'utf8'),
    (key, value: unknown, context?: { source?: string }): unknown =>
      key === 'price' && context?.source ? new Decimal(context.source) : value,
  ) as Record<string, Point[]>;
  return rows.map((r) => {
    const outcomes = pyList(r.outcomes);
    const tokens = pyList(r.clob_token_ids);
    const points = history[r.market_id] ?? [];
    return {
      marketId: r.market_id,
      eventTitle: r.event_title.trim(),
      question: r.market_question.trim(),
      startDate: orNull(r.start_date),
      endDate: orNull(r.end_date),
      closedTime: orNull(r.closed_time),
      totalVolumeUsd: orNull(r.total_volume),
      winningOutcome: orNull(r.winning_outcome),
      outcomes: outcomes.map((outcome, i) => ({
        outcome,
        symbol: `${r.market_id}-${outcome.toUpperCase().replace(/[^A-Z0-9]+/g, '')}.PM`,
        tokenId: tokens[i] ?? '',
        history: points
          .filter((p) => p.token_id === tokens[i])
          .map((p) => ({ date: p.date, price: p.price }))
          .sort((a, b) => a.date.localeCompare(b.date)),
      })),
    };
  });
}

const cache = new Map<string, Promise<PolymarketMarket[]>>();

/** The recorded markets, in file order. @throws Error when the files are missing or malformed. */
export function loadPolymarketMarkets(dataDir: string = loadMarketDataDir()): Promise<PolymarketMarket[]> {
  const dir = path.resolve(dataDir);
  let p = cache.get(dir);
  if (!p) {
    p = load(dir);
    cache.set(dir, p);
    p.catch(() => cache.delete(dir));
  }
  return p;
}

/**
 * The recorded daily prices (probability units, oldest first) of an outcome token by its CLOB token id
 * (a listed prediction symbol's `sourceCoin`); undefined when the recording has no prices for it.
 */
export async function tokenPrices(tokenId: string, dataDir?: string): Promise<Decimal[] | undefined> {
  for (const market of await loadPolymarketMarkets(dataDir))
    for (const o of market.outcomes)
      if (o.tokenId === tokenId && o.history.length) return o.history.map((h) => h.price);
  return undefined;
}

/** The outcome of a symbol such as `511754-YES.PM`, with its market; undefined when unknown. */
export async function findPolymarketOutcome(
  symbol: string,
  dataDir?: string,
): Promise<{ market: PolymarketMarket; outcome: PolymarketOutcome } | undefined> {
  for (const market of await loadPolymarketMarkets(dataDir)) {
    const outcome = market.outcomes.find((o) => o.symbol === symbol);
    if (outcome) return { market, outcome };
  }
  return undefined;
}
