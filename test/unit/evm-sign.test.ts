/**
 * Signing EIP-712 typed data as the EVM venues' orders are signed (venues/evm-sign.ts, libsecp256k1 in WebAssembly):
 * byte for byte the signature viem's `signTypedData` makes (RFC 6979 nonces, low s, v 27/28), for many keys and
 * messages, recoverable to the signer; typed data that does not validate is refused as viem refuses it.
 */
import { describe, expect, it } from 'vitest';
import { hashTypedData, keccak256, recoverTypedDataAddress, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAddress, signTypedData } from 'viem/accounts';
import { signDigestWithKey, signTypedDataWithKey } from '../../venues/evm-sign.js';

/** An Aster-like `Message(string msg)` and a Hyperliquid-like `Agent` typed data over `i`. */
const messages = (i: number) =>
  [
    {
      domain: { name: 'AsterSignTransaction', version: '1', chainId: 714, verifyingContract: `0x${'0'.repeat(40)}` },
      types: { Message: [{ name: 'msg', type: 'string' }] },
      primaryType: 'Message',
      message: { msg: `symbol=ETHUSDT&side=BUY&quantity=0.0${i + 1}&nonce=${1_700_000_000_000_000 + i}` },
    },
    {
      domain: { name: 'Exchange', version: '1', chainId: 1337, verifyingContract: `0x${'0'.repeat(40)}` },
      types: {
        Agent: [
          { name: 'source', type: 'string' },
          { name: 'connectionId', type: 'bytes32' },
        ],
      },
      primaryType: 'Agent',
      message: { source: i % 2 ? 'a' : 'b', connectionId: keccak256(toHex(`order ${i}`)) },
    },
  ] as const;

describe('signTypedDataWithKey', () => {
  it("makes viem's signature byte for byte, both recovery ids among them, and it recovers the signer", async () => {
    const vBytes = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const key = generatePrivateKey();
      const [aster, agent] = messages(i);
      for (const [ours, viems] of [
        [signTypedDataWithKey(key, aster), await signTypedData({ privateKey: key, ...aster })],
        [signTypedDataWithKey(key, agent), await signTypedData({ privateKey: key, ...agent })],
      ]) {
        expect(ours).toBe(viems);
        vBytes.add(ours.slice(-2));
      }
      if (i < 4) {
        const [typedData] = messages(i);
        const signature = signTypedDataWithKey(key, typedData);
        expect(await recoverTypedDataAddress({ ...typedData, signature })).toBe(privateKeyToAddress(key));
      }
    }
    expect([...vBytes].sort()).toEqual(['1b', '1c']);
  });

  it('refuses typed data whose message does not match its types (a bytes32 of 2 bytes), and a key of zero', () => {
    const [typedData, agent] = messages(0);
    const key = generatePrivateKey();
    const short = { ...agent, message: { ...agent.message, connectionId: '0x1234' as const } };
    expect(() => signTypedDataWithKey(key, short)).toThrow(/Expected bytes32, got bytes2/);
    expect(() => signTypedDataWithKey(`0x${'0'.repeat(64)}`, typedData)).toThrow();
  });
});

describe('signDigestWithKey', () => {
  it("signs a typed data's digest as viem signs the typed data (a Polymarket order is signed over the hash that is its id)", async () => {
    for (let i = 0; i < 10; i++) {
      const key = generatePrivateKey();
      const [aster, agent] = messages(i);
      expect(signDigestWithKey(key, hashTypedData(aster))).toBe(await signTypedData({ privateKey: key, ...aster }));
      expect(signDigestWithKey(key, hashTypedData(agent))).toBe(await signTypedData({ privateKey: key, ...agent }));
    }
  });

  it('refuses a digest that is not 32 bytes', () => {
    expect(() => signDigestWithKey(generatePrivateKey(), '0x1234')).toThrow();
  });
});
