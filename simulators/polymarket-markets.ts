/**
 * The Polymarket simulator's markets (docs/venues.md §3.4): each binary market of the `*.PM` symbol table
 * (domain/market/venues/polymarket.ts: the `<MARKET>-YES.PM` and `<MARKET>-NO.PM` outcome tokens of one recorded
 * market id) with the facts the CLOB publishes of it, from one table: its condition id, its two outcome token ids,
 * tick size and neg-risk flag. `GET /tick-size`, `/neg-risk`, `/book`, `/markets-by-token/<token>` and
 * `/clob-markets/<condition>` all answer from here, as does every `market` field (books, orders, trades).
 *
 * The condition id is the simulator's own: the recording has none. On chain a condition id is
 * keccak256(oracle ‖ questionId ‖ outcomeSlotCount) and the token ids derive from it; the recorded token ids
 * cannot be traced back to it, so the simulator names each market `0x` + keccak256(abi.encodePacked(uint256 YES
 * token id, uint256 NO token id)): 32 bytes like the CLOB's, stable across runs, and one per YES/NO pair.
 */
import { encodePacked, keccak256 } from 'viem';
import { Decimal } from '../domain/decimal.js';
import { POLYMARKET_SYMBOLS, POLYMARKET_TOKENS } from '../domain/market/venues/polymarket.js';

/** One binary market as the simulator lists it: condition id (0x, 64 hex), YES and NO token ids (decimal uint256). */
export interface SimMarket {
  conditionId: string;
  yes: string;
  no: string;
  /** Minimum price increment (USD per share), as the symbol table gives it. */
  tickSize: Decimal;
  /** Whether the market settles on the neg-risk exchange (orders are signed for its contract). */
  negRisk: boolean;
}

/** The simulator's condition id of the market whose outcome tokens are `yes` and `no` (decimal uint256 text). */
export const simConditionId = (yes: string, no: string): string =>
  keccak256(encodePacked(['uint256', 'uint256'], [BigInt(yes), BigInt(no)]));

/** The simulator's markets: the `*.PM` symbols paired by recorded market id, YES then NO. */
export const SIM_MARKETS: readonly SimMarket[] = (() => {
  const outcome = (marketId: string, side: 'YES' | 'NO') =>
    POLYMARKET_SYMBOLS.find(
      (s) =>
        s.venueSymbol && POLYMARKET_TOKENS[s.venueSymbol]?.marketId === marketId && s.symbol.endsWith(`-${side}.PM`),
    );
  const ids = [...new Set(Object.values(POLYMARKET_TOKENS).map((t) => t.marketId))];
  return ids.flatMap((id) => {
    const yes = outcome(id, 'YES');
    const no = outcome(id, 'NO');
    if (!yes?.venueSymbol || !no?.venueSymbol) return [];
    return [
      {
        conditionId: simConditionId(yes.venueSymbol, no.venueSymbol),
        yes: yes.venueSymbol,
        no: no.venueSymbol,
        tickSize: new Decimal(yes.tickSize),
        negRisk: POLYMARKET_TOKENS[yes.venueSymbol]?.negRisk ?? false,
      },
    ];
  });
})();

const BY_TOKEN = new Map(SIM_MARKETS.flatMap((m) => [[m.yes, m] as const, [m.no, m] as const]));
const BY_CONDITION = new Map(SIM_MARKETS.map((m) => [m.conditionId, m]));

/** The market an outcome token (decimal token id) belongs to, or undefined for a token the simulator does not list. */
export const marketOfToken = (tokenId: string): SimMarket | undefined => BY_TOKEN.get(tokenId);

/** The market of a condition id (any letter case), or undefined. */
export const marketOfCondition = (conditionId: string): SimMarket | undefined =>
  BY_CONDITION.get(conditionId.toLowerCase());

/**
 * `GET /markets-by-token/<token>` in the CLOB's shape: the token's condition id and both its tokens, the
 * primary (Yes) first.
 */
export const marketByTokenAnswer = (m: SimMarket) => ({
  condition_id: m.conditionId,
  primary_token_id: m.yes,
  secondary_token_id: m.no,
});

/**
 * `GET /clob-markets/<condition>` in the CLOB's shape (its short keys): `c` condition id; `t` the tokens
 * `{t: token id, o: outcome}`, Yes then No; `mts` minimum tick size (number); `nr` neg risk; `mos` minimum
 * order size (shares, as `/book`'s `min_order_size`); `mbf` / `tbf` maker / taker base fee (bps, as
 * `/fee-rate`); `fd` fee details `{r: rate = takerFeeBps / 10 000, e: exponent 1, to: taker only}`; `r`
 * rewards (none: null); `gst` game start time (none: null); `ao` accepting orders.
 */
export const clobMarketInfoAnswer = (m: SimMarket, takerFeeBps: number, minOrderSize: string) => ({
  c: m.conditionId,
  t: [
    { t: m.yes, o: 'Yes' },
    { t: m.no, o: 'No' },
  ],
  mts: m.tickSize.toNumber(),
  nr: m.negRisk,
  mos: Number(minOrderSize),
  mbf: 0,
  tbf: takerFeeBps,
  fd: { r: new Decimal(takerFeeBps).div(10_000).toNumber(), e: 1, to: true },
  r: null,
  gst: null,
  ao: true,
});
