/**
 * Polymarket outcome tokens the platform routes to (`<MARKET>-<OUTCOME>.PM`), from the recorded
 * election markets (data/recorded/polymarket_election_top20): six markets, both outcome tokens of
 * each. `venueSymbol` and `sourceCoin` are the outcome's CLOB token id (decimal uint256): the venue
 * trades that token and the offline mark replays its recorded daily prices
 * (modules/market/feeds/prediction-marks.ts). Prices are probabilities (USD per share, 0–1) on a 0.01
 * tick; sizes are shares with 2 decimals (the CLOB's size rounding); no leverage.
 * test/venues/polymarket.test.ts checks every row against the recorded CSV and JSON.
 */
import type { SymbolSpec } from '../symbol-spec.js';

export const POLYMARKET_SYMBOLS: SymbolSpec[] = [
  {
    symbol: 'TRUMP-INAUGURATED-YES.PM',
    base: 'TRUMP-INAUGURATED',
    venue: 'polymarket',
    quote: 'USD',
    sourceCoin: '45714870634090908403813747458214625542376052548606303175331201110938821302832',
    assetClass: 'prediction',
    szDecimals: 2,
    tickSize: '0.01',
    maxLeverage: 1,
    venueSymbol: '45714870634090908403813747458214625542376052548606303175331201110938821302832',
  },
  {
    symbol: 'TRUMP-INAUGURATED-NO.PM',
    base: 'TRUMP-INAUGURATED',
    venue: 'polymarket',
    quote: 'USD',
    sourceCoin: '81903344213938200361285862519406650037576398044514748634670292917494365866240',
    assetClass: 'prediction',
    szDecimals: 2,
    tickSize: '0.01',
    maxLeverage: 1,
    venueSymbol: '81903344213938200361285862519406650037576398044514748634670292917494365866240',
  },
  {
    symbol: 'HARRIS-INAUGURATED-YES.PM',
    base: 'HARRIS-INAUGURATED',
    venue: 'polymarket',
    quote: 'USD',
    sourceCoin: '70948999046678954944326787736190690890568173143213485913437360277446343508580',
    assetClass: 'prediction',
    szDecimals: 2,
    tickSize: '0.01',
    maxLeverage: 1,
    venueSymbol: '70948999046678954944326787736190690890568173143213485913437360277446343508580',
  },
  {
    symbol: 'HARRIS-INAUGURATED-NO.PM',
    base: 'HARRIS-INAUGURATED',
    venue: 'polymarket',
    quote: 'USD',
    sourceCoin: '12281160367645562427655326652447690861620454304704683288492828384648426658299',
    assetClass: 'prediction',
    szDecimals: 2,
    tickSize: '0.01',
    maxLeverage: 1,
    venueSymbol: '12281160367645562427655326652447690861620454304704683288492828384648426658299',
  },
  {
    symbol: 'CARNEY-CANADA-PRIME-MINISTER-YES.PM',
    base: 'CARNEY-CANADA-PRIME-MINISTER',
    venue: 'polymarket',
    quote: 'USD',
    sourceCoin: '29677413448356631423250052573262008356913370083986817030510370064664558041792',
    assetClass: 'prediction',
    szDecimals: 2,
    tickSize: '0.01',
    maxLeverage: 1,
    venueSymbol: '29677413448356631423250052573262008356913370083986817030510370064664558041792',
  },
  {
    symbol: 'CARNEY-CANADA-PRIME-MINISTER-NO.PM',
    base: 'CARNEY-CANADA-PRIME-MINISTER',
    venue: 'polymarket',
    quote: 'USD',
    sourceCoin: '115500896288417093456030036113841947954779737078916313348905317033023580388531',
    assetClass: 'prediction',
    szDecimals: 2,
    tickSize: '0.01',
    maxLeverage: 1,
    venueSymbol: '115500896288417093456030036113841947954779737078916313348905317033023580388531',
  },
  {
    symbol: 'LEE-JAEMYUNG-KOREA-PRES-YES.PM',
    base: 'LEE-JAEMYUNG-KOREA-PRES',
    venue: 'polymarket',
    quote: 'USD',
    sourceCoin: '106153378961102532315642223211322829491902773315904192835321056658787574388535',
    assetClass: 'prediction',
    szDecimals: 2,
    tickSize: '0.01',
    maxLeverage: 1,
    venueSymbol: '106153378961102532315642223211322829491902773315904192835321056658787574388535',
  },
  {
    symbol: 'LEE-JAEMYUNG-KOREA-PRES-NO.PM',
    base: 'LEE-JAEMYUNG-KOREA-PRES',
    venue: 'polymarket',
    quote: 'USD',
    sourceCoin: '77444435762420711044339640645792265526010696615911175439180482698545420366139',
    assetClass: 'prediction',
    szDecimals: 2,
    tickSize: '0.01',
    maxLeverage: 1,
    venueSymbol: '77444435762420711044339640645792265526010696615911175439180482698545420366139',
  },
  {
    symbol: 'TRZASKOWSKI-POLAND-PRES-YES.PM',
    base: 'TRZASKOWSKI-POLAND-PRES',
    venue: 'polymarket',
    quote: 'USD',
    sourceCoin: '9985510571211594606436989364549728150268400968429116207816527248582274291346',
    assetClass: 'prediction',
    szDecimals: 2,
    tickSize: '0.01',
    maxLeverage: 1,
    venueSymbol: '9985510571211594606436989364549728150268400968429116207816527248582274291346',
  },
  {
    symbol: 'TRZASKOWSKI-POLAND-PRES-NO.PM',
    base: 'TRZASKOWSKI-POLAND-PRES',
    venue: 'polymarket',
    quote: 'USD',
    sourceCoin: '95044204495071447962354072933210357509612220350121617225795580441278155097858',
    assetClass: 'prediction',
    szDecimals: 2,
    tickSize: '0.01',
    maxLeverage: 1,
    venueSymbol: '95044204495071447962354072933210357509612220350121617225795580441278155097858',
  },
  {
    symbol: 'NICUSOR-DAN-ROMANIA-PRES-YES.PM',
    base: 'NICUSOR-DAN-ROMANIA-PRES',
    venue: 'polymarket',
    quote: 'USD',
    sourceCoin: '65635069780420563470359317634895637337713542089289204127626426923331166629221',
    assetClass: 'prediction',
    szDecimals: 2,
    tickSize: '0.01',
    maxLeverage: 1,
    venueSymbol: '65635069780420563470359317634895637337713542089289204127626426923331166629221',
  },
  {
    symbol: 'NICUSOR-DAN-ROMANIA-PRES-NO.PM',
    base: 'NICUSOR-DAN-ROMANIA-PRES',
    venue: 'polymarket',
    quote: 'USD',
    sourceCoin: '75108011059255100121309616647139761925541153138774950455720013752098078766968',
    assetClass: 'prediction',
    szDecimals: 2,
    tickSize: '0.01',
    maxLeverage: 1,
    venueSymbol: '75108011059255100121309616647139761925541153138774950455720013752098078766968',
  },
];

/**
 * Per-token venue facts the symbol spec has no field for: the recorded market id (the CSV's
 * `market_id`) and whether the market settles on the neg-risk exchange (orders are then signed
 * for `0xe2222d27…`). The recording has no `neg_risk` column, so every row here is false; the
 * signing code handles both.
 */
export const POLYMARKET_TOKENS: Record<string, { marketId: string; negRisk: boolean }> = {
  '45714870634090908403813747458214625542376052548606303175331201110938821302832': {
    marketId: '511754',
    negRisk: false,
  }, // TRUMP-INAUGURATED-YES.PM
  '81903344213938200361285862519406650037576398044514748634670292917494365866240': {
    marketId: '511754',
    negRisk: false,
  }, // TRUMP-INAUGURATED-NO.PM
  '70948999046678954944326787736190690890568173143213485913437360277446343508580': {
    marketId: '511753',
    negRisk: false,
  }, // HARRIS-INAUGURATED-YES.PM
  '12281160367645562427655326652447690861620454304704683288492828384648426658299': {
    marketId: '511753',
    negRisk: false,
  }, // HARRIS-INAUGURATED-NO.PM
  '29677413448356631423250052573262008356913370083986817030510370064664558041792': {
    marketId: '516769',
    negRisk: false,
  }, // CARNEY-CANADA-PRIME-MINISTER-YES.PM
  '115500896288417093456030036113841947954779737078916313348905317033023580388531': {
    marketId: '516769',
    negRisk: false,
  }, // CARNEY-CANADA-PRIME-MINISTER-NO.PM
  '106153378961102532315642223211322829491902773315904192835321056658787574388535': {
    marketId: '534189',
    negRisk: false,
  }, // LEE-JAEMYUNG-KOREA-PRES-YES.PM
  '77444435762420711044339640645792265526010696615911175439180482698545420366139': {
    marketId: '534189',
    negRisk: false,
  }, // LEE-JAEMYUNG-KOREA-PRES-NO.PM
  '9985510571211594606436989364549728150268400968429116207816527248582274291346': {
    marketId: '514139',
    negRisk: false,
  }, // TRZASKOWSKI-POLAND-PRES-YES.PM
  '95044204495071447962354072933210357509612220350121617225795580441278155097858': {
    marketId: '514139',
    negRisk: false,
  }, // TRZASKOWSKI-POLAND-PRES-NO.PM
  '65635069780420563470359317634895637337713542089289204127626426923331166629221': {
    marketId: '519068',
    negRisk: false,
  }, // NICUSOR-DAN-ROMANIA-PRES-YES.PM
  '75108011059255100121309616647139761925541153138774950455720013752098078766968': {
    marketId: '519068',
    negRisk: false,
  }, // NICUSOR-DAN-ROMANIA-PRES-NO.PM
};
