/**
 * Hyperliquid signing (docs/venues.md §1.1, §1.2): pure functions, no I/O.
 *
 * - L1 actions (order, cancel, …) are signed by the AGENT key as a "phantom agent":
 *   `connectionId = keccak256(msgpack(action) ‖ u64be(nonce) ‖ V ‖ E)` with `V` = `0x00` or
 *   `0x01‖vault(20 bytes)` and `E` = empty or `0x00‖u64be(expiresAfter)`, then EIP-712
 *   `Agent(string source, bytes32 connectionId)` in domain `Exchange`/`1`/1337/0x0, source `a`
 *   (mainnet) or `b` (testnet).
 * - User-signed actions (approveAgent, usdSend, withdraw3, …) are signed by the MASTER wallet:
 *   EIP-712 `HyperliquidTransaction:<Name>` in domain `HyperliquidSignTransaction`/`1`/
 *   parseInt(signatureChainId, 16)/0x0 over the typed fields only.
 *
 * The action is msgpack-encoded with `@msgpack/msgpack` exactly as given: key order is insertion
 * order (never sort or spread an action), integers ≥ 2^32 encode as uint64 (0xcf), strings are
 * hashed byte for byte (`"2000.0"` ≠ `"2000"`). An action must not contain `undefined` (it would
 * encode as nil where the venue expects the key absent): build it without absent keys.
 */
import { encode } from '@msgpack/msgpack';
import { concat, keccak256, numberToHex, pad, parseSignature, type Hex } from 'viem';
import { recoverTypedDataSigner } from '../evm-recover.js';
import { signTypedDataWithKey } from '../evm-sign.js';
import { Decimal } from '../../domain/decimal.js';

/** A Hyperliquid signature as posted: `r`/`s` `0x` + 64 hex, `v` 27 or 28. */
export interface HlSignature {
  r: Hex;
  s: Hex;
  v: number;
}

/** Options of an L1 action's hash and signature. `network` picks the phantom agent's source. */
export interface L1Options {
  /** Sub-account or vault the agent acts for (`0x` + 40 hex); absent for the master account. */
  vaultAddress?: string | null;
  /** Epoch ms after which the venue refuses the action; absent = no expiry. */
  expiresAfter?: number | bigint | null;
  network: 'mainnet' | 'testnet';
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000' as const;

/** The L1 phantom-agent EIP-712 domain (same on testnet). */
export const L1_DOMAIN = { name: 'Exchange', version: '1', chainId: 1337, verifyingContract: ZERO_ADDRESS } as const;

/** The phantom agent's EIP-712 types. */
export const AGENT_TYPES = {
  Agent: [
    { name: 'source', type: 'string' },
    { name: 'connectionId', type: 'bytes32' },
  ],
} as const;

/** Phantom agent `source` per network. */
export const SOURCE = { mainnet: 'a', testnet: 'b' } as const;

/** `hyperliquidChain` of user-signed actions per network. */
export const HYPERLIQUID_CHAIN = { mainnet: 'Mainnet', testnet: 'Testnet' } as const;

/** The `signatureChainId` the official SDKs use for user-signed actions (421614, Arbitrum Sepolia). */
export const SIGNATURE_CHAIN_ID = '0x66eee';

/** Typed fields of each user-signed action, in signing order (venues.md §1.2). */
export const USER_SIGNED_TYPES = {
  'HyperliquidTransaction:ApproveAgent': [
    { name: 'hyperliquidChain', type: 'string' },
    { name: 'agentAddress', type: 'address' },
    { name: 'agentName', type: 'string' },
    { name: 'nonce', type: 'uint64' },
  ],
  'HyperliquidTransaction:UsdSend': [
    { name: 'hyperliquidChain', type: 'string' },
    { name: 'destination', type: 'string' },
    { name: 'amount', type: 'string' },
    { name: 'time', type: 'uint64' },
  ],
  'HyperliquidTransaction:Withdraw': [
    { name: 'hyperliquidChain', type: 'string' },
    { name: 'destination', type: 'string' },
    { name: 'amount', type: 'string' },
    { name: 'time', type: 'uint64' },
  ],
  'HyperliquidTransaction:ApproveBuilderFee': [
    { name: 'hyperliquidChain', type: 'string' },
    { name: 'maxFeeRate', type: 'string' },
    { name: 'builder', type: 'address' },
    { name: 'nonce', type: 'uint64' },
  ],
} as const;

/** A user-signed primary type. */
export type UserSignedType = keyof typeof USER_SIGNED_TYPES;

/** The EIP712Domain type list of user-signed actions (for `eth_signTypedData_v4` payloads). */
export const EIP712_DOMAIN_TYPE = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
];

const u64be = (n: number | bigint): Hex => {
  const b = BigInt(n);
  if (b < 0n || b >= 1n << 64n) throw new Error(`not a uint64: ${b}`);
  return numberToHex(b, { size: 8 });
};

/**
 * The L1 action hash (`connectionId`), `0x` + 64 hex.
 * @param action the action object exactly as it will be posted (key order matters).
 * @param nonce epoch ms (the outer `nonce` of the request).
 * @throws Error when the vault address is not 20 bytes or a number is out of uint64 range.
 */
export function actionHash(
  action: unknown,
  nonce: number | bigint,
  vaultAddress?: string | null,
  expiresAfter?: number | bigint | null,
): Hex {
  const parts: Hex[] = [`0x${Buffer.from(encode(action)).toString('hex')}`, u64be(nonce)];
  if (vaultAddress == null) parts.push('0x00');
  else {
    if (!/^0x[0-9a-fA-F]{40}$/.test(vaultAddress)) throw new Error(`bad vault address ${vaultAddress}`);
    parts.push('0x01', vaultAddress.toLowerCase() as Hex);
  }
  if (expiresAfter != null) parts.push('0x00', u64be(expiresAfter));
  return keccak256(concat(parts));
}

/** The phantom-agent typed data an L1 action is signed as. */
export function l1TypedData(connectionId: Hex, network: 'mainnet' | 'testnet') {
  return {
    domain: L1_DOMAIN,
    types: AGENT_TYPES,
    primaryType: 'Agent' as const,
    message: { source: SOURCE[network], connectionId },
  };
}

function split(sig: Hex): HlSignature {
  const p = parseSignature(sig);
  return { r: p.r, s: p.s, v: Number(p.v ?? BigInt(27 + (p.yParity ?? 0))) };
}

/** Normalises a posted signature: r/s left-padded to 32 bytes (Python prints them without leading zeros). @throws Error when malformed. */
export function normaliseSignature(sig: { r: string; s: string; v: number | string }): HlSignature {
  const v = Number(sig.v);
  if (v !== 27 && v !== 28) throw new Error('bad signature v');
  const hex = (x: string): Hex => {
    if (!/^0x[0-9a-fA-F]{1,64}$/.test(x)) throw new Error('bad signature r/s');
    return pad(x.toLowerCase() as Hex, { size: 32 });
  };
  return { r: hex(sig.r), s: hex(sig.s), v };
}

/**
 * Signs an L1 action with the agent key (RFC 6979, deterministic).
 * @param privateKey agent key, `0x` + 64 hex.
 * @param action the action exactly as posted.
 * @param nonce epoch ms, the request's `nonce`.
 * @returns `{r, s, v}` as posted in `signature`.
 */
export async function signL1Action(
  privateKey: Hex,
  action: unknown,
  nonce: number | bigint,
  opts: L1Options,
): Promise<HlSignature> {
  const td = l1TypedData(actionHash(action, nonce, opts.vaultAddress, opts.expiresAfter), opts.network);
  return split(signTypedDataWithKey(privateKey, td));
}

/**
 * The address that signed an L1 action (lower-case), as the venue recovers it. A tampered action,
 * nonce, vault or network recovers some other address. @throws Error on a malformed signature.
 */
export async function recoverL1Signer(
  action: unknown,
  nonce: number | bigint,
  signature: { r: string; s: string; v: number | string },
  opts: L1Options,
): Promise<string> {
  const sig = normaliseSignature(signature);
  const td = l1TypedData(actionHash(action, nonce, opts.vaultAddress, opts.expiresAfter), opts.network);
  return recoverTypedDataSigner({ ...td, signature: { r: sig.r, s: sig.s, v: BigInt(sig.v) } });
}

/** The EIP-712 domain of user-signed actions for a `signatureChainId` (`"0x66eee"`). */
export function userSignedDomain(signatureChainId: string) {
  return {
    name: 'HyperliquidSignTransaction',
    version: '1',
    chainId: parseInt(signatureChainId, 16),
    verifyingContract: ZERO_ADDRESS,
  } as const;
}

/**
 * The typed data of a user-signed action: `message` holds only the typed fields of `primaryType`,
 * taken from `action` (extra keys such as `type`, `signatureChainId` are not signed).
 * @throws Error when a typed field is missing, or `signatureChainId` is neither text nor a number.
 */
export function userSignedTypedData(primaryType: UserSignedType, action: Record<string, unknown>) {
  const fields = USER_SIGNED_TYPES[primaryType];
  const message: Record<string, unknown> = {};
  for (const f of fields) {
    if (action[f.name] === undefined) throw new Error(`${primaryType}: missing ${f.name}`);
    message[f.name] = action[f.name];
  }
  const signatureChainId = action.signatureChainId ?? SIGNATURE_CHAIN_ID;
  if (typeof signatureChainId !== 'string' && typeof signatureChainId !== 'number')
    throw new Error(`${primaryType}: signatureChainId is not a hex string`);
  return {
    domain: userSignedDomain(String(signatureChainId)),
    types: { [primaryType]: fields.map((f) => ({ ...f })) } as Record<string, { name: string; type: string }[]>,
    primaryType,
    message,
  };
}

/** Signs a user-signed action with the master wallet's key. `action` carries `signatureChainId` and `hyperliquidChain`. */
export async function signUserSignedAction(
  privateKey: Hex,
  primaryType: UserSignedType,
  action: Record<string, unknown>,
): Promise<HlSignature> {
  const td = userSignedTypedData(primaryType, action);
  return split(signTypedDataWithKey(privateKey, td));
}

/** The master address (lower-case) that signed a user-signed action. @throws Error on a malformed signature or action. */
export async function recoverUserSigner(
  primaryType: UserSignedType,
  action: Record<string, unknown>,
  signature: { r: string; s: string; v: number | string },
): Promise<string> {
  const sig = normaliseSignature(signature);
  const td = userSignedTypedData(primaryType, action);
  return recoverTypedDataSigner({
    ...(td as never as Parameters<typeof recoverTypedDataSigner>[0]),
    signature: { r: sig.r, s: sig.s, v: BigInt(sig.v) },
  });
}

/** Splits a 65-byte hex signature (`0x` + 130 hex, as `eth_signTypedData_v4` returns) into `{r, s, v}`. @throws Error when malformed. */
export function splitSignature(signature: string): HlSignature {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) throw new Error('signature is not 65 bytes of hex');
  return split(signature as Hex);
}

/** What `agentName` carries after the name when the approval expires (Hyperliquid convention). */
export const VALID_UNTIL = ' valid_until ';

/**
 * `agentName` of an approval: `"<name> valid_until <ms>"` when it expires (the convention the venue
 * reads as the agent's expiry and reports back as `validUntil` in `extraAgents`), else the name.
 */
export function agentNameWithExpiry(name: string, expiresAt?: number | null): string {
  return expiresAt == null ? name : `${name}${VALID_UNTIL}${expiresAt}`;
}

/** Splits an `agentName` into the name and the expiry (epoch ms, or null when none). `""` is the unnamed agent. */
export function parseAgentName(agentName: string | null | undefined): { name: string; validUntil: number | null } {
  const s = agentName ?? '';
  const m = /^(.*?) ?valid_until (\d+)$/.exec(s);
  if (!m) return { name: s, validUntil: null };
  return { name: m[1], validUntil: Number(m[2]) };
}

/**
 * The official SDKs' `float_to_int_for_hashing`: `x × 10^8` as an exact integer (BigInt, so
 * `123123123123` gives `12312312312300000000`, not the float `…299999232`).
 * @param x a decimal string.
 * @throws Error `rounding error` when `x` has more than 8 decimals.
 */
export function floatToIntForHashing(x: string): bigint {
  const scaled = new Decimal(x).mul(1e8);
  if (!scaled.isInteger()) throw new Error(`float_to_int causes rounding error: ${x}`);
  return BigInt(scaled.toFixed(0));
}
