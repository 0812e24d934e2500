/**
 * The owner multisig of a firm, a Safe (Safe{Wallet} contracts v1.3+/1.4.1): the EIP-712 `SafeTx`
 * its owners sign, and the same checks the Safe makes in `checkNSignatures`, done off-chain against
 * the owners, threshold and nonce read live — so a tampered transaction, a non-owner or too few
 * signatures are refused before anyone spends gas. Only plain `CALL`s with no refund are built
 * (value 0, operation 0, safeTxGas 0, baseGas 0, gasPrice 0, gasToken 0, refundReceiver 0).
 * Signatures are 65-byte ECDSA `r ‖ s ‖ v` (v 27/28, `eth_signTypedData_v4`), concatenated in
 * ascending signer-address order, as the Safe requires.
 *
 * The multisig is the audited Safe v1.4.1 (npm `@safe-global/safe-contracts`); safe-deploy.ts
 * creates one on a local chain.
 */
import {
  concatHex,
  hashTypedData,
  isAddressEqual,
  parseAbi,
  recoverTypedDataAddress,
  zeroAddress,
  type Address,
  type Hex,
  type TypedDataDefinition,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { publicClient as client } from './clients.js';
import { sendContractCall } from './tx.js';

/** The read and execute surface of a Safe used here. */
export const SAFE_ABI = parseAbi([
  'function getOwners() view returns (address[])',
  'function getThreshold() view returns (uint256)',
  'function nonce() view returns (uint256)',
  'function getTransactionHash(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, uint256 _nonce) view returns (bytes32)',
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

/** The EIP-712 typed data of a Safe transaction (what `eth_signTypedData_v4` is given). */
export type SafeTxTypedData = TypedDataDefinition<typeof SAFE_TX_TYPES, 'SafeTx'>;

/**
 * The typed data the owners sign for `call` — domain `{ chainId, verifyingContract: safe }`,
 * message `SafeTx{ to, value 0, data, operation 0 (CALL), safeTxGas 0, baseGas 0, gasPrice 0,
 * gasToken 0, refundReceiver 0, nonce }` — and its hash (the Safe's `getTransactionHash`). Pure.
 */
export function safeTxTypedData(call: SafeCall): { typedData: SafeTxTypedData; hash: Hex } {
  const typedData: SafeTxTypedData = {
    domain: { chainId: call.chainId, verifyingContract: call.safe },
    types: SAFE_TX_TYPES,
    primaryType: 'SafeTx' as const,
    message: {
      to: call.to,
      value: 0n,
      data: call.data,
      operation: 0,
      safeTxGas: 0n,
      baseGas: 0n,
      gasPrice: 0n,
      gasToken: zeroAddress,
      refundReceiver: zeroAddress,
      nonce: call.nonce,
    },
  };
  return { typedData, hash: hashTypedData(typedData) };
}

type JsonTypedData = {
  domain?: { chainId?: unknown; verifyingContract?: unknown };
  primaryType?: unknown;
  message?: Record<string, unknown>;
};

/**
 * The plain call a SafeTx typed data describes, or why it is not one the platform accepts (a
 * delegatecall, ether value, gas refund, or another primary type). Accepts the JSON form too
 * (numbers as decimal strings, as stored by the payout workflow). Pure.
 */
export function safeCallOf(
  typedData: SafeTxTypedData | JsonTypedData,
): { ok: true; call: SafeCall } | { ok: false; reason: string } {
  const t: JsonTypedData = typedData;
  const m = t.message ?? {};
  if (t.primaryType !== 'SafeTx') return { ok: false, reason: 'typed data is not a SafeTx' };
  const big = (x: unknown) => {
    try {
      return BigInt(x as string);
    } catch {
      return null;
    }
  };
  const zeroes =
    ['value', 'operation', 'safeTxGas', 'baseGas', 'gasPrice'].every((k) => big(m[k]) === 0n) &&
    [m.gasToken, m.refundReceiver].every((a) => typeof a === 'string' && /^0x0{40}$/i.test(a));
  if (!zeroes)
    return {
      ok: false,
      reason:
        'only plain calls are accepted: value, operation, safeTxGas, baseGas, gasPrice, gasToken and refundReceiver must be 0',
    };
  const chainId = big(t.domain?.chainId);
  const nonce = big(m.nonce);
  const addr = (a: unknown) => typeof a === 'string' && /^0x[0-9a-fA-F]{40}$/.test(a);
  if (
    chainId === null ||
    nonce === null ||
    !addr(t.domain?.verifyingContract) ||
    !addr(m.to) ||
    typeof m.data !== 'string' ||
    !/^0x([0-9a-fA-F]{2})*$/.test(m.data)
  )
    return { ok: false, reason: 'malformed SafeTx typed data' };
  return {
    ok: true,
    call: {
      safe: t.domain!.verifyingContract as Address,
      chainId: Number(chainId),
      to: m.to as Address,
      data: m.data as Hex,
      nonce,
    },
  };
}

const isCall = (x: object): x is SafeCall => 'safe' in x && 'nonce' in x && !('domain' in x);

/**
 * An owner's 65-byte signature (`r ‖ s ‖ v`, v 27/28) of a Safe transaction, given as the call,
 * its typed data, or `safeTxTypedData`'s result — what a wallet's `eth_signTypedData_v4` returns.
 */
export async function signSafeTx(
  privateKey: Hex,
  tx: SafeCall | SafeTxTypedData | { typedData: SafeTxTypedData },
): Promise<Hex> {
  const typedData = isCall(tx) ? safeTxTypedData(tx).typedData : 'typedData' in tx ? tx.typedData : tx;
  return privateKeyToAccount(privateKey).signTypedData(typedData);
}

/** Concatenates owners' signatures in ascending signer order (the Safe's convention). */
export function packSignatures(sigs: { signer: Address; signature: Hex }[]): Hex {
  return concatHex(
    [...sigs].sort((a, b) => (a.signer.toLowerCase() < b.signer.toLowerCase() ? -1 : 1)).map((s) => s.signature),
  );
}

/** The Safe's current nonce (the next transaction it will execute). */
export async function readSafeNonce(rpcUrl: string, safe: Address): Promise<bigint> {
  return client(rpcUrl).readContract({ address: safe, abi: SAFE_ABI, functionName: 'nonce' });
}

/** The Safe's owners and threshold, read live. */
export async function readSafe(
  rpcUrl: string,
  safe: Address,
): Promise<{ owners: Address[]; threshold: number; nonce: bigint }> {
  const c = client(rpcUrl);
  const [owners, threshold, nonce] = await Promise.all([
    c.readContract({ address: safe, abi: SAFE_ABI, functionName: 'getOwners' }),
    c.readContract({ address: safe, abi: SAFE_ABI, functionName: 'getThreshold' }),
    c.readContract({ address: safe, abi: SAFE_ABI, functionName: 'nonce' }),
  ]);
  return { owners: [...owners], threshold: Number(threshold), nonce };
}

/** Why an authorisation was refused, or who signed it (ascending addresses). */
export type SafeVerdict = { ok: true; signers: Address[] } | { ok: false; reason: string };

/**
 * Verifies `signatures` over a Safe transaction as the Safe's `checkNSignatures` will, without
 * spending gas: the typed data is a plain call (see {@link safeCallOf}) for this node's chain id
 * and this Safe; its nonce is the Safe's current one; there are at least `threshold` 65-byte
 * ECDSA signatures (v 27/28); the first `threshold` recover to owners in strictly ascending
 * address order (so no owner counts twice). Reads owners, threshold, nonce and chain id live.
 * A tampered recipient or amount changes the hash, so its signatures recover to non-owners.
 *
 * Two call forms: `({ rpcUrl, safe, typedData, signatures })`, or `(rpcUrl, call, signatures)`.
 * @throws Error only when the node cannot be reached (a bad authorisation is `{ ok: false }`).
 */
export async function verifySafeAuthorization(args: {
  rpcUrl: string;
  safe: Address;
  typedData: SafeTxTypedData | JsonTypedData;
  signatures: Hex;
}): Promise<SafeVerdict>;
export async function verifySafeAuthorization(rpcUrl: string, call: SafeCall, signatures: Hex): Promise<SafeVerdict>;
export async function verifySafeAuthorization(
  a: string | { rpcUrl: string; safe: Address; typedData: SafeTxTypedData | JsonTypedData; signatures: Hex },
  callArg?: SafeCall,
  sigArg?: Hex,
): Promise<SafeVerdict> {
  let rpcUrl: string;
  let call: SafeCall;
  let signatures: Hex;
  if (typeof a === 'string') {
    [rpcUrl, call, signatures] = [a, callArg!, sigArg!];
  } else {
    const parsed = safeCallOf(a.typedData);
    if (!parsed.ok) return parsed;
    if (!isAddressEqual(parsed.call.safe, a.safe))
      return { ok: false, reason: `typed data is for Safe ${parsed.call.safe}, not ${a.safe}` };
    [rpcUrl, call, signatures] = [a.rpcUrl, parsed.call, a.signatures];
  }
  const [{ owners, threshold, nonce }, chainId] = await Promise.all([
    readSafe(rpcUrl, call.safe),
    client(rpcUrl).getChainId(),
  ]);
  if (chainId !== call.chainId)
    return { ok: false, reason: `signed for chain ${call.chainId}, the node is chain ${chainId}` };
  if (nonce !== call.nonce)
    return { ok: false, reason: `signed for Safe nonce ${call.nonce}, the Safe is at ${nonce}` };
  if (!/^0x[0-9a-fA-F]*$/.test(signatures)) return { ok: false, reason: 'signatures must be hex' };
  const body = signatures.slice(2);
  if (body.length % 130 !== 0 || body.length === 0)
    return { ok: false, reason: 'signatures must be 65-byte ECDSA signatures, concatenated' };
  const count = body.length / 130;
  if (count < threshold) return { ok: false, reason: `${count} signature(s); the Safe needs ${threshold}` };
  const { typedData } = safeTxTypedData(call);
  const owned = new Set(owners.map((o) => o.toLowerCase()));
  const signers: Address[] = [];
  for (let i = 0; i < threshold; i++) {
    const signature: Hex = `0x${body.slice(i * 130, (i + 1) * 130)}`;
    const v = parseInt(signature.slice(-2), 16);
    if (v !== 27 && v !== 28)
      return { ok: false, reason: `signature ${i + 1}: only ECDSA typed-data signatures (v 27/28) are accepted` };
    const signer = await recoverTypedDataAddress({ ...typedData, signature }).catch(() => null);
    if (!signer || !owned.has(signer.toLowerCase()))
      return {
        ok: false,
        reason: `signature ${i + 1} is not by an owner of the Safe (recovered ${signer ?? 'nothing'})`,
      };
    if (signers.length && signer.toLowerCase() <= signers[signers.length - 1].toLowerCase())
      return { ok: false, reason: 'signatures must come from distinct owners in ascending address order' };
    signers.push(signer);
  }
  return { ok: true, signers };
}

/**
 * Who signed `call`: the address each 65-byte signature in `signatures` (concatenated `r ‖ s ‖ v`, v 27/28)
 * recovers to over the call's typed data, in order; null for a signature that recovers to nothing or is not
 * an ECDSA typed-data one. Malformed input (not hex, not whole 65-byte signatures) answers `[]`. Pure: it reads
 * no chain, so it tells which transaction a set was made for (e.g. the same call at another nonce), not whether
 * the Safe would accept it (see {@link verifySafeAuthorization}).
 */
export async function recoverSafeTxSigners(call: SafeCall, signatures: Hex): Promise<(Address | null)[]> {
  const body = /^0x[0-9a-fA-F]*$/.test(signatures) ? signatures.slice(2) : '';
  if (body.length === 0 || body.length % 130 !== 0) return [];
  const { typedData } = safeTxTypedData(call);
  const out: (Address | null)[] = [];
  for (let i = 0; i < body.length / 130; i++) {
    const signature: Hex = `0x${body.slice(i * 130, (i + 1) * 130)}`;
    const v = parseInt(signature.slice(-2), 16);
    out.push(
      v === 27 || v === 28 ? await recoverTypedDataAddress({ ...typedData, signature }).catch(() => null) : null,
    );
  }
  return out;
}

/**
 * Executes a signed plain call through the Safe (`execTransaction` with value 0, operation 0 and
 * no refund) from `senderKey` — any account may send it, the owners' signatures authorise it and
 * the sender pays only gas. For tests and the operator's own tooling: the platform never calls it.
 * Waits until mined; returns the transaction hash. With `gas` the node's simulation is skipped
 * and a refused transaction is mined as a revert.
 * @throws viem `ContractFunctionExecutionError` when the simulation reverts (Safe codes: GS020 too
 *   few signatures, GS026 not an owner / not ascending, GS013 the call itself reverted), nothing sent;
 *   TxRevertedError when it was mined and reverted.
 */
export async function executeSafeTx(
  rpcUrl: string,
  senderKey: Hex,
  tx: { safe: Address; to: Address; data: Hex; signatures: Hex; gas?: bigint },
): Promise<Hex> {
  const sent = await sendContractCall(rpcUrl, senderKey, {
    to: tx.safe,
    abi: SAFE_ABI,
    functionName: 'execTransaction',
    args: [tx.to, 0n, tx.data, 0, 0n, 0n, 0n, zeroAddress, zeroAddress, tx.signatures],
    gas: tx.gas,
  });
  return sent.hash;
}
