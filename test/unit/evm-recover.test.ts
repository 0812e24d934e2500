/**
 * Recovering an EVM signer as the venues do (venues/evm-recover.ts, libsecp256k1 in WebAssembly): the same address
 * viem's own recovery answers, for every form of signature viem accepts, and a refusal of what no venue accepts.
 */
import { describe, expect, it } from 'vitest';
import { hashTypedData, keccak256, parseSignature, recoverTypedDataAddress, serializeSignature, toHex } from 'viem';
import { privateKeyToAccount, sign, signTypedData } from 'viem/accounts';
import { recoverHashSigner, recoverTypedDataSigner } from '../../venues/evm-recover.js';

const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const signer = privateKeyToAccount(KEY).address.toLowerCase();
const typedData = {
  domain: {
    name: 'Exchange',
    version: '1',
    chainId: 1337,
    verifyingContract: '0x0000000000000000000000000000000000000000',
  },
  types: {
    Agent: [
      { name: 'source', type: 'string' },
      { name: 'connectionId', type: 'bytes32' },
    ],
  },
  primaryType: 'Agent',
  message: { source: 'a', connectionId: keccak256(toHex('order')) },
} as const;

describe('recoverTypedDataSigner', () => {
  it('answers the signer viem recovers, lower-case, from 65 bytes of hex and from { r, s, v } and { r, s, yParity }', async () => {
    const signature = await signTypedData({ privateKey: KEY, ...typedData });
    const { r, s, v, yParity } = parseSignature(signature);
    expect((await recoverTypedDataAddress({ ...typedData, signature })).toLowerCase()).toBe(signer);
    expect(recoverTypedDataSigner({ ...typedData, signature })).toBe(signer);
    expect(recoverTypedDataSigner({ ...typedData, signature: { r, s, v: v ?? 0n } })).toBe(signer);
    expect(recoverTypedDataSigner({ ...typedData, signature: { r, s, yParity } })).toBe(signer);
  });

  it('recovers another address from a tampered message, and refuses a v that is neither 27/28 nor 0/1', async () => {
    const signature = await signTypedData({ privateKey: KEY, ...typedData });
    const tampered = { ...typedData, message: { ...typedData.message, source: 'b' } };
    expect(recoverTypedDataSigner({ ...tampered, signature })).not.toBe(signer);
    const { r, s } = parseSignature(signature);
    expect(() => recoverTypedDataSigner({ ...typedData, signature: { r, s, v: 29n } })).toThrow(/invalid v/);
  });
});

describe('recoverHashSigner', () => {
  it('recovers the signer of a raw 32-byte hash, and refuses an s of zero', async () => {
    const hash = hashTypedData(typedData);
    const sig = await sign({ hash, privateKey: KEY });
    expect(recoverHashSigner(hash, serializeSignature(sig))).toBe(signer);
    expect(() => recoverHashSigner(hash, { ...sig, s: `0x${'0'.repeat(64)}` })).toThrow();
  });
});
