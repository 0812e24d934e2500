/**
 * Loads the recorded Hyperliquid candles (`hyperliquid_candles/<COIN>_perp_<1m|1h>-futures.csv`)
 * into the `candles` table for every listed perp (every venue's, by its `sourceCoin`), once: rows
 * already there are kept. Values go from CSV text to `numeric` untouched (no float on the way). The
 * candles api places them on the replay's clock (modules/market/queries/candles.ts).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { VENUE_SYMBOLS } from '../../../domain/market/symbols.js';
import { marketDataDir } from './recorded.js';

/** Intervals recorded on disk. */
export const RECORDED_INTERVALS = ['1m', '1h'] as const;
/** `candles.source` of the rows loaded here. */
export const CANDLE_SOURCE = 'recorded:hyperliquid';

/** Every listed perp: each replays (and charts) the recorded Hyperliquid coin of its base. */
const PERPS = Object.values(VENUE_SYMBOLS)
  .flat()
  .filter((s) => s.assetClass === 'perp');

/**
 * Loads every recorded interval of every listed perp; returns the number of rows inserted. Idempotent, so
 * a load that failed part way may simply be run again.
 * @throws Error when a CSV file cannot be read, or from PostgreSQL (unreachable, or the connection lost
 *   during the load, e.g. `57P01` when the server restarts: the load rejects, it never crashes the process).
 */
export async function loadRecordedCandles(databaseUrl: string, dataDir = marketDataDir()): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  // Without a listener a connection lost between two queries is an unhandled 'error' event (a crash); the
  // next query rejects instead.
  client.on('error', () => undefined);
  await client.connect();
  let inserted = 0;
  try {
    for (const spec of PERPS) {
      for (const interval of RECORDED_INTERVALS) {
        const { rows } = await client.query<{ n: string }>(
          'select count(*)::text as n from candles where venue = $1 and symbol = $2 and interval = $3 and not live',
          [spec.venue, spec.symbol, interval],
        );
        const file = path.join(dataDir, 'hyperliquid_candles', `${spec.sourceCoin}_perp_${interval}-futures.csv`);
        const lines = (await readFile(file, 'utf8')).trim().split(/\r?\n/).slice(1);
        if (Number(rows[0].n) >= lines.length) continue;
        const cols: string[][] = [[], [], [], [], [], []];
        for (const line of lines) {
          const [ms, , open, high, low, close, volume] = line.split(',');
          [ms, open, high, low, close, volume].forEach((v, i) => cols[i].push(v));
        }
        const res = await client.query(
          `insert into candles (venue, symbol, interval, open_time, open, high, low, close, volume, source)
           select $1, $2, $3, to_timestamp(t::bigint / 1000.0), o::numeric, h::numeric, l::numeric, c::numeric, v::numeric, $4
             from unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[]) as x(t, o, h, l, c, v)
           on conflict do nothing`,
          [spec.venue, spec.symbol, interval, CANDLE_SOURCE, ...cols],
        );
        inserted += res.rowCount ?? 0;
      }
    }
  } finally {
    await client.end().catch(() => undefined);
  }
  return inserted;
}
