/**
 * The owner multisig of a firm, a Safe (Safe{Wallet} contracts v1.3+/1.4.1): the EIP-712 `SafeTx`
 * its owners sign, and the same checks the Safe makes in `checkNSignatures`, done off-chain against
 * the owners, threshold and nonce read live — so a tampered transaction, a non-owner or too few
 * signatures are refused before anyone spends gas. Only plain `CALL`s with no refund are built
 * (value 0, operation 0, safeTxGas 0, baseGas 0, gasPrice 0, gasToken 0, refundReceiver 0).
 * Signatures are 65-byte ECDSA `r ‖ s ‖ v` (v 27/28, `eth_signTypedData_v4`), concatenated in
 * ascending signer-address order, as the Safe requires.
 */
import { concatHex, createPublicClient, hashTypedData, http, parseAbi, recoverTypedDataAddress, zeroAddress, type Address, type Hex, type TypedDataDefinition } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** The read and execute surface of a Safe used here. */
export const SAFE_ABI = parseAbi([
  'function getOwners() view returns (address[])',
  'function getThreshold() view returns (uint256)',
  'function nonce() view returns (uint256)',
  'function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures) payable returns (bool success)',
]);

/** EIP-712 types of a Safe transaction. */
export const SAFE_TX_TYPES = {
  SafeTx: [
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'data', type: 'bytes' },
    { name: 'operation', type: 'uint8' },
    { name: 'safeTxGas', type: 'uint256' },
    { name: 'baseGas', type: 'uint256' },
    { name: 'gasPrice', type: 'uint256' },
    { name: 'gasToken', type: 'address' },
    { name: 'refundReceiver', type: 'address' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const;

/** A plain call through the Safe: target, calldata and the Safe's nonce it is signed for. */
export interface SafeCall {
  safe: Address;
  chainId: number;
  to: Address;
  data: Hex;
  nonce: bigint;
}

/** The typed data the owners sign for `call`, and its hash (the Safe's `getTransactionHash`). Pure. */
export function safeTxTypedData(call: SafeCall): { typedData: TypedDataDefinition<typeof SAFE_TX_TYPES, 'SafeTx'>; hash: Hex } {
  const typedData = {
    domain: { chainId: call.chainId, verifyingContract: call.safe },
    types: SAFE_TX_TYPES,
    primaryType: 'SafeTx' as const,
    message: { to: call.to, value: 0n, data: call.data, operation: 0, safeTxGas: 0n, baseGas: 0n, gasPrice: 0n, gasToken: zeroAddress, refundReceiver: zeroAddress, nonce: call.nonce },
  };
  return { typedData, hash: hashTypedData(typedData) };
}

/** An owner's 65-byte signature of `call` (what a wallet's `eth_signTypedData_v4` returns). */
export async function signSafeTx(privateKey: Hex, call: SafeCall): Promise<Hex> {
  return privateKeyToAccount(privateKey).signTypedData(safeTxTypedData(call).typedData);
}

/** Concatenates owners' signatures in ascending signer order (the Safe's convention). */
export function packSignatures(sigs: { signer: Address; signature: Hex }[]): Hex {
  return concatHex([...sigs].sort((a, b) => (a.signer.toLowerCase() < b.signer.toLowerCase() ? -1 : 1)).map((s) => s.signature));
}

const client = (rpcUrl: string) => createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }) });

/** The Safe's current nonce (the next transaction it will execute). */
export async function readSafeNonce(rpcUrl: string, safe: Address): Promise<bigint> {
  return client(rpcUrl).readContract({ address: safe, abi: SAFE_ABI, functionName: 'nonce' });
}

/** Why an authorisation was refused, or who signed it. */
export type SafeVerdict = { ok: true; signers: Address[] } | { ok: false; reason: string };

/**
 * Verifies `signatures` over `call` as the Safe will: the nonce is the Safe's current one; at
 * least `threshold` 65-byte ECDSA signatures; the first `threshold` recover to distinct owners in
 * strictly ascending address order. Reads owners, threshold and nonce live.
 * @throws Error only when the node cannot be reached (a bad authorisation is `{ ok: false }`).
 */
export async function verifySafeAuthorization(rpcUrl: string, call: SafeCall, signatures: Hex): Promise<SafeVerdict> {
  const c = client(rpcUrl);
  const [owners, threshold, nonce] = await Promise.all([
    c.readContract({ address: call.safe, abi: SAFE_ABI, functionName: 'getOwners' }),
    c.readContract({ address: call.safe, abi: SAFE_ABI, functionName: 'getThreshold' }),
    c.readContract({ address: call.safe, abi: SAFE_ABI, functionName: 'nonce' }),
  ]);
  if (nonce !== call.nonce) return { ok: false, reason: `signed for Safe nonce ${call.nonce}, the Safe is at ${nonce}` };
  const body = signatures.slice(2);
  if (body.length % 130 !== 0 || body.length === 0) return { ok: false, reason: 'signatures must be 65-byte ECDSA signatures, concatenated' };
  const count = body.length / 130;
  if (count < Number(threshold)) return { ok: false, reason: `${count} signature(s); the Safe needs ${threshold}` };
  const { typedData } = safeTxTypedData(call);
  const owned = new Set(owners.map((o) => o.toLowerCase()));
  const signers: Address[] = [];
  for (let i = 0; i < Number(threshold); i++) {
    const signature = `0x${body.slice(i * 130, (i + 1) * 130)}` as Hex;
    const v = parseInt(signature.slice(-2), 16);
    if (v !== 27 && v !== 28) return { ok: false, reason: `signature ${i + 1}: only ECDSA typed-data signatures (v 27/28) are accepted` };
    const signer = await recoverTypedDataAddress({ ...typedData, signature }).catch(() => null);
    if (!signer || !owned.has(signer.toLowerCase())) return { ok: false, reason: `signature ${i + 1} is not by an owner of the Safe (recovered ${signer ?? 'nothing'})` };
    if (signers.length && signer.toLowerCase() <= signers[signers.length - 1].toLowerCase()) return { ok: false, reason: 'signatures must come from distinct owners in ascending address order' };
    signers.push(signer);
  }
  return { ok: true, signers };
}
