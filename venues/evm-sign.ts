/**
 * Signing an EIP-712 message with a secp256k1 key, as an EVM venue's order or request is signed (docs/venues.md §1.1,
 * §2.1, §3.1): the digest by viem (`hashTypedData`, which also validates the typed data), the signature by
 * libsecp256k1 compiled to WebAssembly (`tiny-secp256k1`, RFC 6979 deterministic nonces, low s). The signature is the
 * one viem's `signTypedData` makes, byte for byte (test/unit/evm-sign.test.ts), at less CPU: issue 15 measured
 * 0.58 ms per signature with viem (pure-JS noble curves) and 0.22 ms with this one on the venue bench's machine, and
 * every Hyperliquid, Aster and Polymarket order is signed on its path to the venue. The counterpart of
 * venues/evm-recover.ts.
 */
import { signRecoverable } from 'tiny-secp256k1';
import { bytesToHex, hashTypedData, hexToBytes, type Hex, type TypedData, type TypedDataDefinition } from 'viem';

/** The last byte of a 65-byte signature per recovery id: the legacy v (27, 28) that `eth_signTypedData_v4` answers. */
const V_BYTE = ['1b', '1c'] as const;

/**
 * The 65-byte signature `r ‖ s ‖ v` (0x hex, v 27 or 28) of the EIP-712 typed data `typedData` by `privateKey`
 * (0x + 64 hex): what viem's `signTypedData({ privateKey, ...typedData })` answers.
 * @throws Error on a private key out of range, or viem's on typed data that does not validate or encode.
 */
export function signTypedDataWithKey<
  const T extends TypedData | Record<string, unknown>,
  P extends keyof T | 'EIP712Domain' = keyof T,
>(privateKey: Hex, typedData: TypedDataDefinition<T, P>): Hex {
  return signDigestWithKey(privateKey, hashTypedData(typedData));
}

/**
 * The 65-byte signature `r ‖ s ‖ v` (0x hex, v 27 or 28) of a 32-byte EIP-712 digest `digest` (0x hex, what viem's
 * `hashTypedData` answers) by `privateKey`: {@link signTypedDataWithKey} for a caller that needs the digest itself too
 * (a Polymarket order's hash is its id), so it is computed once.
 * @throws Error on a private key out of range or a digest that is not 32 bytes.
 */
export function signDigestWithKey(privateKey: Hex, digest: Hex): Hex {
  const { signature, recoveryId } = signRecoverable(hexToBytes(digest), hexToBytes(privateKey));
  return `${bytesToHex(signature)}${V_BYTE[recoveryId as 0 | 1]}`;
}
