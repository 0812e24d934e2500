/**
 * Polymarket CLOB order signing, pure (no I/O): order amounts from decimal strings, the EIP-712
 * `Order` of the V2 and V3 exchanges and its hash (which IS Polymarket's order id), the search for an
 * order's signing timestamp given its hash ({@link findOrderTimestamp}), L1 `ClobAuth`
 * signatures, L2 HMAC request signatures, the platform's own `AuthorizeSigner` consent message
 * (verified by the platform, never sent to the venue), and the venue-side checks the simulator
 * runs (recover a signer). docs/venues.md §3.
 *
 * Exchange versions ({@link EXCHANGES}, keyed by the number the CLOB's `GET /version` answers): V2,
 * domain version `"2"`, a standard and a neg-risk exchange contract; V3, domain version `"3"`, one
 * exchange contract for every market, per network. Both sign the same struct `Order(uint256
 * salt,address maker,address signer,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint8
 * side,uint8 signatureType,uint256 timestamp,bytes32 metadata,bytes32 builder)` and travel in the same
 * wire body, so an order's version is in its signature only. `expiration` travels on the wire but is
 * not signed. V1 orders (`taker`, `nonce`, `feeRateBps` in the struct) are never built here. Every
 * function taking an `exchangeVersion` defaults it to 2.
 *
 * Units: prices are probability units (USDC per share, 0–1) as decimal strings; sizes are shares;
 * on-chain amounts are 6-decimal integers (USDC and outcome tokens both have 6 decimals), carried
 * as decimal-integer strings or bigints. No JS float ever holds a price, size or amount.
 */
import { createHmac } from 'node:crypto';
import {
  bytesToHex,
  concat,
  encodeAbiParameters,
  hashDomain,
  hashTypedData,
  hexToBytes,
  keccak256,
  numberToHex,
  pad,
  stringToHex,
  type Hex,
  type RecoverTypedDataAddressParameters,
  type TypedData,
} from 'viem';
import { recoverHashSigner, recoverTypedDataSigner } from '../evm-recover.js';
import { privateKeyToAccount } from 'viem/accounts';
import { signTypedDataWithKey } from '../evm-sign.js';
import { Decimal } from '../../domain/decimal.js';

/** Chain id per network: Polygon mainnet, Amoy testnet. */
export const POLYMARKET_CHAIN_ID = { mainnet: 137, testnet: 80002 } as const;

/** The networks orders are signed for (`POLYMARKET_CHAIN_ID`'s keys). */
export type PolymarketNetwork = keyof typeof POLYMARKET_CHAIN_ID;

/** V2 exchange contracts (same address on Polygon and Amoy): standard and neg-risk markets. */
export const EXCHANGE_V2 = {
  standard: '0xE111180000d2663C0091e4f400237545B87B996B',
  negRisk: '0xe2222d279d744050d28e00520010520000310F59',
} as const;

/** The V3 exchange contract per network: one for standard and neg-risk markets alike. */
export const EXCHANGE_V3 = {
  mainnet: '0xe3333700cA9d93003F00f0F71f8515005F6c00Aa',
  testnet: '0x9fE6e61422AdB6F610d8597F9684b16912D50C3D',
} as const;

/** bytes32 zero (the default `metadata` and `builder`). */
export const BYTES32_ZERO: Hex = `0x${'0'.repeat(64)}`;

/** EIP-712 types of the V2 and V3 `Order`, fields in signing order. */
export const ORDER_TYPES = {
  Order: [
    { name: 'salt', type: 'uint256' },
    { name: 'maker', type: 'address' },
    { name: 'signer', type: 'address' },
    { name: 'tokenId', type: 'uint256' },
    { name: 'makerAmount', type: 'uint256' },
    { name: 'takerAmount', type: 'uint256' },
    { name: 'side', type: 'uint8' },
    { name: 'signatureType', type: 'uint8' },
    { name: 'timestamp', type: 'uint256' },
    { name: 'metadata', type: 'bytes32' },
    { name: 'builder', type: 'bytes32' },
  ],
} as const;

/** The exchange versions the platform signs: the `version` the CLOB's `GET /version` answers. */
export type ExchangeVersion = 2 | 3;

/** One exchange version: its EIP-712 domain version, verifying contract per network and market kind, order struct. */
export interface ExchangeSpec {
  /** The domain's `version` string. */
  domainVersion: string;
  /** The verifying contract of standard and neg-risk markets, per network (checksummed address). */
  contracts: Record<PolymarketNetwork, { standard: Hex; negRisk: Hex }>;
  /** The EIP-712 types of the signed `Order`. */
  types: typeof ORDER_TYPES;
}

/**
 * The exchanges by version (docs/venues.md §3.1), as `@polymarket/clob-client-v2` 1.1.0 signs for
 * them: V2 per market kind, the same addresses on Polygon and Amoy; V3 one contract per network.
 */
export const EXCHANGES: Record<ExchangeVersion, ExchangeSpec> = {
  2: { domainVersion: '2', contracts: { mainnet: EXCHANGE_V2, testnet: EXCHANGE_V2 }, types: ORDER_TYPES },
  3: {
    domainVersion: '3',
    contracts: {
      mainnet: { standard: EXCHANGE_V3.mainnet, negRisk: EXCHANGE_V3.mainnet },
      testnet: { standard: EXCHANGE_V3.testnet, negRisk: EXCHANGE_V3.testnet },
    },
    types: ORDER_TYPES,
  },
};

/** True when `v` (what `GET /version` answered) is an exchange version the platform signs. */
export function isExchangeVersion(v: unknown): v is ExchangeVersion {
  return typeof v === 'number' && Object.hasOwn(EXCHANGES, v);
}

/** EIP-712 types of the exchange's domain (name, version, chainId, verifyingContract). */
const EIP712_DOMAIN_TYPES = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
] as const;

/** Order side on chain: 0 BUY, 1 SELL. */
export const SIDE_CODE = { BUY: 0, SELL: 1 } as const;

/**
 * Signature types of V2 and V3 orders, as the exchange checks them: 0 EOA (`maker` = `signer`, an ECDSA
 * signature of that key: what the platform signs, the agent's own wallet as maker), 1 POLY_PROXY
 * and 2 POLY_GNOSIS_SAFE (`maker` the Polymarket proxy / Safe wallet that `signer` owns on chain,
 * ECDSA by `signer`), 3 POLY_1271 (`maker` = `signer` = a smart-contract deposit wallet whose
 * ERC-1271 `isValidSignature` judges an ERC-7739-wrapped signature of its owner).
 */
export const SIGNATURE_TYPE = { EOA: 0, POLY_PROXY: 1, POLY_GNOSIS_SAFE: 2, POLY_1271: 3 } as const;

/** One V2 / V3 order as signed (the struct is the same). Integers as decimal strings (uint256 do not fit a JS number). */
export interface PolymarketOrder {
  /** Decimal integer < 2^53 (sent as a JSON number). */
  salt: string;
  maker: Hex;
  signer: Hex;
  /** Outcome token id, decimal uint256. */
  tokenId: string;
  /** 6-decimal integer: USDC paid (BUY) or shares sold (SELL). */
  makerAmount: string;
  /** 6-decimal integer: shares received (BUY) or USDC received (SELL). */
  takerAmount: string;
  side: 'BUY' | 'SELL';
  signatureType: number;
  /** Epoch ms, decimal string. */
  timestamp: string;
  metadata: Hex;
  builder: Hex;
}

/**
 * The EIP-712 domain of an exchange version on a network (`negRisk` picks the neg-risk exchange of
 * V2; V3 has one exchange). @throws Error on an exchange version not in {@link EXCHANGES}.
 */
export function orderDomain(network: PolymarketNetwork, negRisk: boolean, exchangeVersion: ExchangeVersion = 2) {
  const spec = exchangeSpec(exchangeVersion);
  const contracts = spec.contracts[network];
  return {
    name: 'Polymarket CTF Exchange',
    version: spec.domainVersion,
    chainId: POLYMARKET_CHAIN_ID[network],
    verifyingContract: negRisk ? contracts.negRisk : contracts.standard,
  } as const;
}

/** The spec of an exchange version. @throws Error on a version not in {@link EXCHANGES}. */
function exchangeSpec(exchangeVersion: number): ExchangeSpec {
  if (!isExchangeVersion(exchangeVersion))
    throw new Error(`unsupported Polymarket exchange version ${exchangeVersion}`);
  return EXCHANGES[exchangeVersion];
}

const orderMessage = (o: PolymarketOrder) => ({
  salt: BigInt(o.salt),
  maker: o.maker,
  signer: o.signer,
  tokenId: BigInt(o.tokenId),
  makerAmount: BigInt(o.makerAmount),
  takerAmount: BigInt(o.takerAmount),
  side: SIDE_CODE[o.side],
  signatureType: o.signatureType,
  timestamp: BigInt(o.timestamp),
  metadata: o.metadata,
  builder: o.builder,
});

/** The full typed data of an order for an exchange version (what `eth_signTypedData_v4` would sign). */
export function orderTypedData(
  order: PolymarketOrder,
  network: PolymarketNetwork,
  negRisk: boolean,
  exchangeVersion: ExchangeVersion = 2,
) {
  return {
    domain: orderDomain(network, negRisk, exchangeVersion),
    types: exchangeSpec(exchangeVersion).types,
    primaryType: 'Order' as const,
    message: orderMessage(order),
  };
}

/**
 * The EIP-712 digest of an order under an exchange version's domain: Polymarket's `orderID`
 * (0x-prefixed, 32 bytes, lower-case hex). The same fields hash differently under V2 and V3.
 * @throws Error on a malformed integer or address field.
 */
export function orderHash(
  order: PolymarketOrder,
  network: PolymarketNetwork,
  negRisk: boolean,
  exchangeVersion: ExchangeVersion = 2,
): Hex {
  return hashTypedData(orderTypedData(order, network, negRisk, exchangeVersion));
}

/**
 * The signing `timestamp` (epoch ms, decimal string) at which `order` (every field but its
 * timestamp) hashes to `target` (an order id, `0x` + 64 hex, any case), trying every millisecond
 * in [`fromMs`, `toMs`], under `exchangeVersion`'s domain, or null. This is how an order signed by another process is recognised from
 * what the venue lists (side, size, price, creation second): the rest of the order is the
 * platform's own (salt from the intent, maker, signer, signature type). Only the timestamp word of
 * the struct changes per try (two keccak256 per millisecond).
 * @throws Error on a malformed integer or address field.
 */
export function findOrderTimestamp(
  order: Omit<PolymarketOrder, 'timestamp'>,
  network: PolymarketNetwork,
  negRisk: boolean,
  target: string,
  fromMs: number,
  toMs: number,
  exchangeVersion: ExchangeVersion = 2,
): string | null {
  const want = target.toLowerCase();
  const fields = exchangeSpec(exchangeVersion).types.Order;
  const typeHash = keccak256(stringToHex(`Order(${fields.map((f) => `${f.type} ${f.name}`).join(',')})`));
  const word = (v: bigint | number) => pad(numberToHex(v), { size: 32 });
  const m = orderMessage({ ...order, timestamp: '0' });
  const struct = hexToBytes(
    concat([
      typeHash,
      word(m.salt),
      pad(m.maker, { size: 32 }),
      pad(m.signer, { size: 32 }),
      word(m.tokenId),
      word(m.makerAmount),
      word(m.takerAmount),
      word(m.side),
      word(m.signatureType),
      word(0n),
      m.metadata,
      m.builder,
    ]),
  );
  const digestInput = new Uint8Array(66);
  digestInput.set([0x19, 0x01], 0);
  const domain = orderDomain(network, negRisk, exchangeVersion);
  const separator = hashDomain({
    domain: { ...domain, chainId: BigInt(domain.chainId) },
    types: { EIP712Domain: EIP712_DOMAIN_TYPES },
  });
  digestInput.set(hexToBytes(separator), 2);
  const wanted = hexToBytes(want as Hex);
  // The timestamp is the low 8 bytes of struct word 9 (ms < 2^53 fit them).
  const tsView = new DataView(struct.buffer, struct.byteOffset + 32 * 9 + 24, 8);
  for (let ms = Math.max(0, fromMs); ms <= toMs; ms++) {
    tsView.setBigUint64(0, BigInt(ms));
    digestInput.set(keccak256(struct, 'bytes'), 34);
    const digest = keccak256(digestInput, 'bytes');
    if (digest.every((b, i) => b === wanted[i])) return String(ms);
  }
  return null;
}

/**
 * Signs an order for an exchange version with the signer's secp256k1 key (the ECDSA of signature
 * types 0, 1 and 2); returns the 65-byte signature (0x hex).
 */
export async function signOrder(
  privateKey: Hex,
  order: PolymarketOrder,
  network: PolymarketNetwork,
  negRisk: boolean,
  exchangeVersion: ExchangeVersion = 2,
): Promise<Hex> {
  return signTypedDataWithKey(privateKey, orderTypedData(order, network, negRisk, exchangeVersion));
}

/**
 * The address (lower-case) that signed the typed data `signed()` builds (with its signature), or null
 * when the data or the signature does not parse (`signed` runs inside the check).
 */
async function recoveredSigner<const T extends TypedData | Record<string, unknown>, P extends keyof T | 'EIP712Domain'>(
  signed: () => RecoverTypedDataAddressParameters<T, P>,
): Promise<string | null> {
  try {
    return recoverTypedDataSigner(signed());
  } catch {
    return null;
  }
}

/**
 * Venue side: the address that signed `order` under an exchange version's domain (lower-case), or
 * null when the signature does not parse. A signature of another version recovers another address.
 */
export async function recoverOrderSigner(
  order: PolymarketOrder,
  signature: string,
  network: PolymarketNetwork,
  negRisk: boolean,
  exchangeVersion: ExchangeVersion = 2,
): Promise<string | null> {
  return recoveredSigner(() => ({
    ...orderTypedData(order, network, negRisk, exchangeVersion),
    signature: signature as Hex,
  }));
}

/** EIP-712 domain name and version of Polymarket's deposit wallet (the ERC-7739 `TypedDataSign` of a POLY_1271 order). */
const DEPOSIT_WALLET_DOMAIN = { name: 'DepositWallet', version: '1' } as const;

/**
 * The contents name and type of an ERC-7739 contents description: implicit mode (`Order(…)`, the
 * name is what precedes the first `(`) or explicit mode (`Order(…)Order`, the name follows the
 * last `)`). Null when the name is empty or holds a character a type name cannot.
 */
function contentsOf(description: string): { name: string; type: string } | null {
  const implicit = description.endsWith(')');
  const name = implicit
    ? description.slice(0, description.indexOf('('))
    : description.slice(description.lastIndexOf(')') + 1);
  const type = implicit ? description : description.slice(0, description.length - name.length);
  if (!name || /^[a-z]/.test(name) || /[\s,()]/.test(name) || name.includes('\u0000') || !type.startsWith(`${name}(`))
    return null;
  return { name, type };
}

/**
 * Venue side of a signature type 3 (POLY_1271) order: what the deposit wallet's ERC-1271
 * `isValidSignature(orderHash, signature)` checks when the exchange calls it. The signature is
 * ERC-7739 nested typed data, `innerSig ‖ appDomainSeparator ‖ contentsHash ‖ contentsDescription ‖
 * uint16(description length)`: `0x1901 ‖ appDomainSeparator ‖ contentsHash` must be the order's own
 * hash (so the app domain is this exchange's and the contents this order's struct), and `innerSig` must
 * sign `TypedDataSign(contents, name, version, chainId, verifyingContract, salt)` with the fields of the
 * wallet's own domain (`DepositWallet`, `1`, the chain, the wallet = the order's `signer`, salt 0) under
 * the app domain. Returns the address that signed (lower-case; the wallet accepts it when it is its
 * owner), or null when the envelope does not parse or does not bind this order. The exchange's
 * domain is `exchangeVersion`'s: an envelope made for another version's exchange does not bind.
 */
export async function recoverPoly1271Owner(
  order: PolymarketOrder,
  signature: string,
  network: PolymarketNetwork,
  negRisk: boolean,
  exchangeVersion: ExchangeVersion = 2,
): Promise<string | null> {
  try {
    const bytes = hexToBytes(signature as Hex);
    const n = bytes.length;
    if (n < 64 + 32 + 32 + 2) return null;
    const descStart = n - 2 - ((bytes[n - 2] << 8) | bytes[n - 1]);
    if (descStart < 64 + 32 + 32) return null;
    const contents = contentsOf(new TextDecoder().decode(bytes.slice(descStart, n - 2)));
    const contentsHash = bytesToHex(bytes.slice(descStart - 32, descStart));
    const appSeparator = bytesToHex(bytes.slice(descStart - 64, descStart - 32));
    if (
      !contents ||
      keccak256(concat(['0x1901', appSeparator, contentsHash])) !== orderHash(order, network, negRisk, exchangeVersion)
    )
      return null;
    const typeHash = keccak256(
      stringToHex(
        `TypedDataSign(${contents.name} contents,string name,string version,uint256 chainId,address verifyingContract,bytes32 salt)${contents.type}`,
      ),
    );
    const structHash = keccak256(
      encodeAbiParameters(
        [
          { type: 'bytes32' },
          { type: 'bytes32' },
          { type: 'bytes32' },
          { type: 'bytes32' },
          { type: 'uint256' },
          { type: 'address' },
          { type: 'bytes32' },
        ],
        [
          typeHash,
          contentsHash,
          keccak256(stringToHex(DEPOSIT_WALLET_DOMAIN.name)),
          keccak256(stringToHex(DEPOSIT_WALLET_DOMAIN.version)),
          BigInt(POLYMARKET_CHAIN_ID[network]),
          order.signer,
          BYTES32_ZERO,
        ],
      ),
    );
    return recoverHashSigner(
      keccak256(concat(['0x1901', appSeparator, structHash])),
      bytesToHex(bytes.slice(0, descStart - 64)),
    );
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Amounts

/** Decimals of (price, size, amount) per tick size (docs/venues.md §3.1). */
export const ROUNDING: Record<string, { price: number; size: number; amount: number }> = {
  '0.1': { price: 1, size: 2, amount: 3 },
  '0.01': { price: 2, size: 2, amount: 4 },
  '0.005': { price: 3, size: 2, amount: 5 },
  '0.0025': { price: 4, size: 2, amount: 6 },
  '0.001': { price: 3, size: 2, amount: 5 },
  '0.0001': { price: 4, size: 2, amount: 6 },
};

const toUnits = (d: Decimal): string => d.mul(1_000_000).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toFixed(0);

/**
 * Maker and taker amounts of a limit order (6-decimal integers as strings), as the official V2
 * clients compute them: price rounded half-up to the tick's price decimals, size rounded down to
 * 2 decimals; BUY pays size·price USDC for size shares, SELL swaps them; an amount with more than
 * the tick's amount decimals is rounded up at amount+4 decimals, then down at amount decimals.
 * Returns also the rounded `price` and `size` (canonical decimal strings).
 * @throws Error on an unknown tick size, or a size or price that rounds to zero.
 */
export function orderAmounts(
  side: 'BUY' | 'SELL',
  size: string,
  price: string,
  tickSize: string,
): { makerAmount: string; takerAmount: string; price: string; size: string } {
  const cfg = ROUNDING[new Decimal(tickSize).toFixed()];
  if (!cfg) throw new Error(`unsupported Polymarket tick size ${tickSize}`);
  const p = new Decimal(price).toDecimalPlaces(cfg.price, Decimal.ROUND_HALF_UP);
  const s = new Decimal(size).toDecimalPlaces(cfg.size, Decimal.ROUND_DOWN);
  if (p.lte(0) || s.lte(0)) throw new Error(`size ${size} at price ${price} rounds to zero`);
  let quote = s.mul(p);
  if (quote.decimalPlaces() > cfg.amount) {
    quote = quote.toDecimalPlaces(cfg.amount + 4, Decimal.ROUND_UP);
    if (quote.decimalPlaces() > cfg.amount) quote = quote.toDecimalPlaces(cfg.amount, Decimal.ROUND_DOWN);
  }
  const [maker, taker] = side === 'BUY' ? [quote, s] : [s, quote];
  return { makerAmount: toUnits(maker), takerAmount: toUnits(taker), price: p.toFixed(), size: s.toFixed() };
}

/**
 * Decimals the CLOB allows the amounts of a FOK/FAK order (docs/venues.md §3.1): its maker amount (USDC of a BUY,
 * shares of a SELL) at most 2, its taker amount at most 4, whatever the tick; a FOK/FAK order carrying a limit
 * order's amounts (a BUY's size·price with 3 or 4 decimals) is refused `invalid amounts, the market buy orders
 * maker amount supports a max accuracy of 2 decimals, taker amount a max of 4 decimals`.
 */
export const MARKET_AMOUNT_DECIMALS = { maker: 2, taker: 4 } as const;

/**
 * Maker and taker amounts of a FOK/FAK order of `size` shares at limit `price` (USD per share), within
 * {@link MARKET_AMOUNT_DECIMALS}: price rounded half-up to the tick's decimals and size down to 2 decimals, as
 * {@link orderAmounts}; a BUY offers size·price USDC rounded UP to 2 decimals for exactly `size` shares (the price
 * it implies is at least the limit, by less than 0.01 USDC over the whole order, so it still matches at the limit
 * price); a SELL offers `size` shares for size·price USDC rounded DOWN to 4 decimals (at most the limit, by less
 * than 0.0001 USDC). Returns the amounts (6-decimal integers as strings) and the rounded `price` and `size`.
 * @throws Error on an unknown tick size, a size or price that rounds to zero, or an implied price outside
 *   [tick, 1 − tick].
 */
export function immediateOrderAmounts(
  side: 'BUY' | 'SELL',
  size: string,
  price: string,
  tickSize: string,
): { makerAmount: string; takerAmount: string; price: string; size: string } {
  const limit = orderAmounts(side, size, price, tickSize);
  const [p, s] = [new Decimal(limit.price), new Decimal(limit.size)];
  const quote =
    side === 'BUY'
      ? s.mul(p).toDecimalPlaces(MARKET_AMOUNT_DECIMALS.maker, Decimal.ROUND_UP)
      : s.mul(p).toDecimalPlaces(MARKET_AMOUNT_DECIMALS.taker, Decimal.ROUND_DOWN);
  const implied = quote.div(s);
  const tick = new Decimal(tickSize);
  if (implied.lt(tick) || implied.gt(new Decimal(1).sub(tick)))
    throw new Error(`${size} shares at ${price} imply ${implied.toFixed()} per share once rounded: outside the book`);
  const [maker, taker] = side === 'BUY' ? [quote, s] : [s, quote];
  return { makerAmount: toUnits(maker), takerAmount: toUnits(taker), price: limit.price, size: limit.size };
}

/**
 * Venue side: the limit price and size (shares) an order's amounts encode: BUY price =
 * maker/taker, size = taker; SELL price = taker/maker, size = maker. Decimal strings.
 */
export function priceAndSize(order: Pick<PolymarketOrder, 'side' | 'makerAmount' | 'takerAmount'>): {
  price: Decimal;
  size: Decimal;
} {
  const maker = new Decimal(order.makerAmount);
  const taker = new Decimal(order.takerAmount);
  return order.side === 'BUY'
    ? { price: maker.div(taker), size: taker.div(1_000_000) }
    : { price: taker.div(maker), size: maker.div(1_000_000) };
}

// ---------------------------------------------------------------------------------------------
// Salt: the idempotency key

/**
 * The order salt derived from a platform intent id: the low 53 bits of keccak256(utf8(intentId)),
 * as a decimal string (always a safe JS integer, because the wire carries the salt as a JSON
 * number). Polymarket has no client order id; the salt is the platform's: the same intent always
 * signs the same salt, so the adapter can recognise its own order after a lost acknowledgement.
 */
export function saltFromIntentId(intentId: string): string {
  const h = BigInt(keccak256(stringToHex(intentId)));
  return (h & ((1n << 53n) - 1n)).toString();
}

// ---------------------------------------------------------------------------------------------
// L1 / L2 API authentication

/** The fixed attestation text of `ClobAuth`. */
export const CLOB_AUTH_MESSAGE = 'This message attests that I control the given wallet';

/** EIP-712 types of the L1 `ClobAuth` message. */
export const CLOB_AUTH_TYPES = {
  ClobAuth: [
    { name: 'address', type: 'address' },
    { name: 'timestamp', type: 'string' },
    { name: 'nonce', type: 'uint256' },
    { name: 'message', type: 'string' },
  ],
} as const;

/** The L1 typed data: domain `{ClobAuthDomain, 1, chainId}` (no verifyingContract). `timestampSec` is epoch seconds. */
export function clobAuthTypedData(address: Hex, timestampSec: string, nonce: bigint, network: 'mainnet' | 'testnet') {
  return {
    domain: { name: 'ClobAuthDomain', version: '1', chainId: POLYMARKET_CHAIN_ID[network] },
    types: CLOB_AUTH_TYPES,
    primaryType: 'ClobAuth' as const,
    message: { address, timestamp: timestampSec, nonce, message: CLOB_AUTH_MESSAGE },
  };
}

/** L1 headers of `POST /auth/api-key` / `GET /auth/derive-api-key`, signed by `privateKey`. */
export async function l1Headers(
  privateKey: Hex,
  timestampSec: string,
  nonce: bigint,
  network: 'mainnet' | 'testnet',
): Promise<Record<string, string>> {
  const account = privateKeyToAccount(privateKey);
  const signature = await account.signTypedData(clobAuthTypedData(account.address, timestampSec, nonce, network));
  return {
    POLY_ADDRESS: account.address,
    POLY_SIGNATURE: signature,
    POLY_TIMESTAMP: timestampSec,
    POLY_NONCE: nonce.toString(),
  };
}

/** Venue side: the address that signed L1 headers (lower-case), or null. */
export async function recoverL1Signer(
  address: string,
  timestampSec: string,
  nonce: bigint,
  signature: string,
  network: 'mainnet' | 'testnet',
): Promise<string | null> {
  return recoveredSigner(() => ({
    ...clobAuthTypedData(address as Hex, timestampSec, nonce, network),
    signature: signature as Hex,
  }));
}

/**
 * The L2 request signature: base64url(HMAC-SHA256(base64url-decode(secret), ts + METHOD + path +
 * body)), `=` padding kept. `path` has no host and no query; `body` is the exact text sent,
 * omitted when empty.
 */
export function hmacSignature(
  secret: string,
  timestampSec: string,
  method: string,
  path: string,
  body?: string,
): string {
  const key = Buffer.from(secret.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  const mac = createHmac('sha256', key)
    .update(`${timestampSec}${method}${path}${body ?? ''}`)
    .digest('base64');
  return mac.replace(/\+/g, '-').replace(/\//g, '_');
}

/** L2 credentials as Polymarket issues them. */
export interface ApiCreds {
  apiKey: string;
  secret: string;
  passphrase: string;
}

/** L2 headers of one private request. */
export function l2Headers(
  address: string,
  creds: ApiCreds,
  timestampSec: string,
  method: string,
  path: string,
  body?: string,
): Record<string, string> {
  return {
    POLY_ADDRESS: address,
    POLY_SIGNATURE: hmacSignature(creds.secret, timestampSec, method, path, body),
    POLY_TIMESTAMP: timestampSec,
    POLY_API_KEY: creds.apiKey,
    POLY_PASSPHRASE: creds.passphrase,
  };
}

// ---------------------------------------------------------------------------------------------
// The platform's consent record (not a Polymarket message: never sent to the venue)

/** EIP-712 types of the platform's `AuthorizeSigner` message. `expiresAt` and `nonce` are epoch ms. */
export const AUTHORIZE_SIGNER_TYPES = {
  AuthorizeSigner: [
    { name: 'funder', type: 'address' },
    { name: 'signer', type: 'address' },
    { name: 'expiresAt', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const;

/** Domain of the platform's authorisation: `{Multivenue Agent Authorization, 1, chainId}`, no contract. */
export function authorizeSignerDomain(network: 'mainnet' | 'testnet') {
  return { name: 'Multivenue Agent Authorization', version: '1', chainId: POLYMARKET_CHAIN_ID[network] } as const;
}

/**
 * The message the owner's wallet signs: `funder` (the owner) lets the platform's agent `signer` trade
 * from the agent's own venue wallet, funded by the owner, until `expiresAt` (epoch ms). The platform
 * verifies it (the custody record of the owner's consent); Polymarket never sees it.
 */
export function authorizeSignerTypedData(args: {
  funder: string;
  signer: string;
  expiresAt: number;
  nonce: number;
  network: 'mainnet' | 'testnet';
}) {
  return {
    domain: authorizeSignerDomain(args.network),
    types: AUTHORIZE_SIGNER_TYPES,
    primaryType: 'AuthorizeSigner' as const,
    message: { funder: args.funder, signer: args.signer, expiresAt: args.expiresAt, nonce: args.nonce },
  };
}

/** The fields of a signed `AuthorizeSigner` message (as JSON carries them). */
export interface AuthorizeSignerMessage {
  funder: string;
  signer: string;
  expiresAt: number | string;
  nonce: number | string;
}

/** Recovers the wallet that signed an `AuthorizeSigner` message (lower-case), or null. */
export async function recoverAuthorizeSigner(
  message: AuthorizeSignerMessage,
  signature: string,
  chainId: number,
): Promise<string | null> {
  return recoveredSigner(() => ({
    domain: { name: 'Multivenue Agent Authorization', version: '1', chainId },
    types: AUTHORIZE_SIGNER_TYPES,
    primaryType: 'AuthorizeSigner',
    message: {
      funder: message.funder as Hex,
      signer: message.signer as Hex,
      expiresAt: BigInt(message.expiresAt),
      nonce: BigInt(message.nonce),
    },
    signature: signature as Hex,
  }));
}
