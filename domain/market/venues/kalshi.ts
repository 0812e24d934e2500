/**
 * Kalshi market sides the platform routes to (`<TICKER>-<YES|NO>.KX`): each row is ONE side of a
 * Kalshi binary market. `venueSymbol` is `<market ticker>:<yes|no>`; prices are that side's price
 * in USD per contract (probability units 0–1) on Kalshi's 1-cent grid (1–99 cents on the wire);
 * sizes are whole contracts (`szDecimals` 0); no leverage.
 *
 * Markets: Kalshi's 2024 presidential winner event `PRES-2024`, markets `PRES-2024-DJT` (Donald
 * Trump) and `PRES-2024-KH` (Kamala Harris) — tickers as used against Kalshi's API in
 * github.com/sriyanm/kalshi-election-analysis (README: "Contracts for Trump (`PRES-2024-DJT`) and
 * Harris (`PRES-2024-KH`)").
 *
 * Offline marks: `sourceCoin` is the Polymarket CLOB token id of the matching outcome of the
 * recorded market "Who will be inaugurated as President?" (data/recorded/polymarket_election_top20:
 * 511754 "Will Donald Trump be inaugurated?", 511753 "Will Kamala Harris be inaugurated?"); the
 * YES side replays the `Yes` token, the NO side the `No` token (modules/market/feeds/prediction-marks.ts).
 * Winning the election and being inaugurated are not the same question, but the recorded prices are
 * the closest real proxy the recording holds. test/venues/kalshi.test.ts checks every row against
 * the recorded CSV and JSON.
 */
import type { SymbolSpec } from '../symbol-spec.js';

const side = (ticker: string, yesNo: 'YES' | 'NO', sourceCoin: string): SymbolSpec => ({
  symbol: `${ticker}-${yesNo}.KX`,
  base: ticker,
  venue: 'kalshi',
  quote: 'USD',
  sourceCoin,
  assetClass: 'prediction',
  szDecimals: 0,
  tickSize: '0.01',
  maxLeverage: 1,
  venueSymbol: `${ticker}:${yesNo.toLowerCase()}`,
});

export const KALSHI_SYMBOLS: SymbolSpec[] = [
  side('PRES-2024-DJT', 'YES', '45714870634090908403813747458214625542376052548606303175331201110938821302832'),
  side('PRES-2024-DJT', 'NO', '81903344213938200361285862519406650037576398044514748634670292917494365866240'),
  side('PRES-2024-KH', 'YES', '70948999046678954944326787736190690890568173143213485913437360277446343508580'),
  side('PRES-2024-KH', 'NO', '12281160367645562427655326652447690861620454304704683288492828384648426658299'),
];

/** Recorded Polymarket market id behind each Kalshi market ticker (the CSV's `market_id`), for the data check. */
export const KALSHI_SOURCE_MARKETS: Record<string, string> = {
  'PRES-2024-DJT': '511754',
  'PRES-2024-KH': '511753',
};
