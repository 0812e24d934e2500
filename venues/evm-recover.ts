/**
 * Recovering the address that signed an EIP-712 message or a 32-byte hash, as an EVM venue checks an order or
 * an authorisation (docs/venues.md §1.4, §2.3, §3.2): the digest by viem (`hashTypedData`), the public key by
 * libsecp256k1 compiled to WebAssembly (`tiny-secp256k1`), the address as keccak-256 of that key's 64 bytes, last 20.
 * Issue 15: viem's recovery (pure-JS noble curves) took ~1.9 ms of CPU per signature here, the largest part of a
 * simulated venue's answer to an order under the venue bench's load; this one takes a fifth of it. Accepts what viem's
 * `recoverTypedDataAddress` accepts: a 65-byte hex signature (`r ‖ s ‖ v`) or `{ r, s, v | yParity }`, with v 27/28 or
 * a y parity 0/1.
 */
import { recover } from 'tiny-secp256k1';
import {
  hashTypedData,
  hexToBytes,
  keccak256,
  pad,
  parseSignature,
  type Hex,
  type RecoverTypedDataAddressParameters,
  type Signature,
  type TypedData,
} from 'viem';

/** A signature as viem's recovery takes it: 65 bytes of hex, or its parts. */
export type RecoverableSignature = Hex | (Pick<Signature, 'r' | 's'> & { v?: bigint; yParity?: number });

/** The recovery id of a y parity (0, 1) or a legacy v (27, 28). @throws Error `invalid v or y parity <value>` otherwise. */
function recoveryId(yParityOrV: number): 0 | 1 {
  const id = { 0: 0, 1: 1, 27: 0, 28: 1 }[yParityOrV] as 0 | 1 | undefined;
  if (id === undefined) throw new Error(`invalid v or y parity ${yParityOrV}`);
  return id;
}

/**
 * The address (lower-case `0x` + 40 hex) whose key signed the 32-byte `hash`.
 * @throws Error when the signature is malformed (length, r or s out of range, v) or recovers no key.
 */
export function recoverHashSigner(hash: Hex, signature: RecoverableSignature): string {
  const { r, s, yParity, v } = typeof signature === 'string' ? parseSignature(signature) : signature;
  const parity = yParity ?? (v === undefined ? undefined : Number(v));
  if (parity === undefined) throw new Error('signature has neither v nor y parity');
  const compact = new Uint8Array(64);
  compact.set(hexToBytes(pad(r, { size: 32 })), 0);
  compact.set(hexToBytes(pad(s, { size: 32 })), 32);
  const publicKey = recover(hexToBytes(hash), compact, recoveryId(parity), false);
  if (!publicKey) throw new Error('signature recovers no public key');
  return `0x${keccak256(publicKey.subarray(1)).slice(-40)}`;
}

/**
 * The address (lower-case) that signed the EIP-712 typed data of `params` with `params.signature`; what viem's
 * `recoverTypedDataAddress` answers, lower-cased. @throws Error as {@link recoverHashSigner}, or viem's on typed data
 * that does not encode.
 */
export function recoverTypedDataSigner<
  const T extends TypedData | Record<string, unknown>,
  P extends keyof T | 'EIP712Domain' = keyof T,
>(params: RecoverTypedDataAddressParameters<T, P>): string {
  const { signature, ...typedData } = params;
  return recoverHashSigner(hashTypedData(typedData as never), signature as RecoverableSignature);
}
