/**
 * Aster Futures v3 request signing (docs/venues.md §2.1; the scheme in force since
 * 2026-01-22 — never the older `personal_sign(keccak(abi.encode(...)))` nor v1 HMAC). Pure: no I/O.
 *
 * A signed request is the business parameters in sending order (values as strings, nulls dropped),
 * then `nonce` (µs), `user` (the owner's main wallet) and `signer` (the API wallet = our agent). The
 * parameter string `k=v&…` (without `signature`) is the `msg` of an EIP-712 `Message(string msg)`
 * in the domain `{name:"AsterSignTransaction", version:"1", chainId:1666 (testnet 714),
 * verifyingContract:0x0}`, signed by the API-wallet key. The request then carries that exact string
 * plus `&signature=0x<r‖s‖v>`, form-urlencoded (body for POST/DELETE, query for GET).
 *
 * Official samples disagree on URL-encoding before signing; we sidestep that by allowing only
 * values the form encoder leaves unchanged ({@link FORM_SAFE}): then the signed string IS the sent
 * string, and the venue verifies "the received string minus `&signature=…`" either way.
 *
 * Agent registration (`POST /fapi/v3/registerAndApproveAgent`) is signed the same way but by the
 * USER's wallet, with `chainId = signatureChainId` (56 for EVM wallets) and the documented field
 * order `user, nonce, agentName, agentAddress, expired, signatureChainId, canSpotTrade,
 * canPerpTrade, canWithdraw[, ipWhitelist]`.
 */
import { hashTypedData, type Hex } from 'viem';
import { recoverTypedDataSigner } from '../evm-recover.js';
import { createHash } from 'node:crypto';
import { privateKeyToAddress } from 'viem/accounts';
import { signTypedDataWithKey } from '../evm-sign.js';

/** Trading-request domain chain id per network (mainnet 1666, testnet 714). */
export const ASTER_CHAIN_ID = { mainnet: 1666, testnet: 714 } as const;

/** `signatureChainId` of an EVM wallet's agent registration (BNB Chain id, per Aster's docs). */
export const REGISTRATION_CHAIN_ID = 56;

/** The only EIP-712 type Aster signs: `Message(string msg)`. */
export const MESSAGE_TYPES = { Message: [{ name: 'msg', type: 'string' }] } as const;

/** `EIP712Domain` field list, for `eth_signTypedData_v4` payloads handed to a wallet. */
export const EIP712_DOMAIN_TYPE = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
];

/** Characters `application/x-www-form-urlencoded` leaves unchanged (WHATWG): keys and values must use only these. */
export const FORM_SAFE = /^[A-Za-z0-9*._-]*$/;

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000' as const;

/** The `AsterSignTransaction` domain with this chain id. */
export function asterDomain(chainId: number) {
  return { name: 'AsterSignTransaction', version: '1', chainId, verifyingContract: ZERO_ADDRESS } as const;
}

/** Ordered request parameters: `[key, value]` pairs; a null/undefined value is dropped. */
export type Params = ReadonlyArray<readonly [string, string | null | undefined]>;

/**
 * `k=v&…` of the non-null pairs, in the given order.
 * @throws Error when a key or value holds a character the form encoder would change (see {@link FORM_SAFE}).
 */
export function paramString(params: Params): string {
  const parts: string[] = [];
  for (const [k, v] of params) {
    if (v === null || v === undefined) continue;
    if (!k || !FORM_SAFE.test(k) || !FORM_SAFE.test(v))
      throw new Error(`Aster parameter ${k}=${v} needs URL-encoding; only [A-Za-z0-9*._-] is signed`);
    parts.push(`${k}=${v}`);
  }
  return parts.join('&');
}

/** The typed data of one `Message(string msg)` in the `AsterSignTransaction` domain of `chainId`. */
export function messageTypedData(msg: string, chainId: number) {
  return { domain: asterDomain(chainId), types: MESSAGE_TYPES, primaryType: 'Message' as const, message: { msg } };
}

/** EIP-712 digest of `msg` (what the key actually signs), 0x-hex. */
export function messageDigest(msg: string, chainId: number): Hex {
  return hashTypedData(messageTypedData(msg, chainId));
}

/** Signs `msg` with `privateKey`: 0x r‖s‖v (65 bytes, v 27/28). */
export async function signMessage(privateKey: Hex, msg: string, chainId: number): Promise<Hex> {
  return signTypedDataWithKey(privateKey, messageTypedData(msg, chainId));
}

/** Addresses of signing keys by the SHA-256 of the key (never the key itself), at most {@link KEY_ADDRESSES_MAX}. */
const keyAddresses = new Map<string, Hex>();
const KEY_ADDRESSES_MAX = 1_000;

/**
 * The address of `privateKey`, remembered by the key's SHA-256: deriving it is an elliptic-curve multiplication
 * (~0.5 ms of CPU), once per key instead of once per signed request (issue 15).
 */
function addressOfKey(privateKey: Hex): Hex {
  const id = createHash('sha256').update(privateKey).digest('base64');
  let address = keyAddresses.get(id);
  if (!address) {
    if (keyAddresses.size >= KEY_ADDRESSES_MAX) keyAddresses.clear();
    keyAddresses.set(id, (address = privateKeyToAddress(privateKey)));
  }
  return address;
}

/** One signed trading request: the signed string, its signature and the wire string to send. */
export interface SignedRequest {
  /** `k=v&…` including `nonce`, `user`, `signer`: the EIP-712 `msg`. */
  msg: string;
  signature: Hex;
  /** `msg&signature=0x…`: the form body (POST/DELETE) or query string (GET). */
  wire: string;
}

/**
 * Signs a trading request for `user` with the API-wallet key.
 * @param params business parameters in sending order (values strings, nulls dropped).
 * @param auth `nonce` in µs; `user` the owner's main wallet; `signer` the API-wallet address
 *   (must be the key's address); `network` picks the chain id.
 * @throws Error on values needing URL-encoding, or when `signer` is not the key's address.
 */
export async function signRequest(
  privateKey: Hex,
  params: Params,
  auth: { nonce: bigint; user: string; signer: string; network: 'mainnet' | 'testnet' },
): Promise<SignedRequest> {
  if (addressOfKey(privateKey).toLowerCase() !== auth.signer.toLowerCase())
    throw new Error('Aster signer must be the address of the signing key');
  const msg = paramString([...params, ['nonce', auth.nonce.toString()], ['user', auth.user], ['signer', auth.signer]]);
  const signature = await signMessage(privateKey, msg, ASTER_CHAIN_ID[auth.network]);
  return { msg, signature, wire: `${msg}&signature=${signature}` };
}

/**
 * Splits a received form string into the signed part and the signature, as the venue does: the
 * signed string is everything before the LAST `&signature=`; the signature is what follows.
 * Returns null when there is no `&signature=` or it is not 65-byte hex.
 */
export function splitSigned(received: string): { msg: string; signature: Hex } | null {
  const at = received.lastIndexOf('&signature=');
  if (at < 0) return null;
  const signature = received.slice(at + '&signature='.length);
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return null;
  return { msg: received.slice(0, at), signature: signature as Hex };
}

/**
 * The venue's check: recovers the address that signed `msg` in the domain of `chainId`
 * (lower-case), or null when the signature does not recover.
 */
export async function recoverSigner(msg: string, signature: Hex, chainId: number): Promise<string | null> {
  try {
    return recoverTypedDataSigner({ ...messageTypedData(msg, chainId), signature });
  } catch {
    return null;
  }
}

/** The fields of an agent registration, as strings in the documented signing order. */
export interface RegistrationFields {
  user: string;
  /** µs. */
  nonce: string;
  agentName: string;
  agentAddress: string;
  /** Agent expiry, epoch ms. */
  expired: string;
  signatureChainId: string;
  canSpotTrade: 'true' | 'false';
  canPerpTrade: 'true' | 'false';
  canWithdraw: 'true' | 'false';
}

/** Documented signing order of {@link RegistrationFields}. */
export const REGISTRATION_ORDER = [
  'user',
  'nonce',
  'agentName',
  'agentAddress',
  'expired',
  'signatureChainId',
  'canSpotTrade',
  'canPerpTrade',
  'canWithdraw',
] as const;

/**
 * The `msg` of an agent registration: the fields in {@link REGISTRATION_ORDER} (no `ipWhitelist`:
 * ours never withdraw, so none is sent).
 * @throws Error when a field is missing or needs URL-encoding.
 */
export function registrationMsg(f: RegistrationFields): string {
  for (const k of REGISTRATION_ORDER)
    if (typeof f[k] !== 'string' || f[k] === '') throw new Error(`Aster registration field ${k} missing`);
  return paramString(REGISTRATION_ORDER.map((k) => [k, f[k]] as const));
}

/** Agent names Aster accepts and the form encoder leaves unchanged: other characters become `-`, at most 32. */
export function safeAgentName(name: string): string {
  const s = name.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 32);
  return s || 'agent';
}
