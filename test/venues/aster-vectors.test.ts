/**
 * Aster v3 signing checked by code that is not ours: ccxt's `aster` class (ccxt 4.5.84) signs requests
 * with its own EIP-712 encoder (`ethEncodeStructuredData`, ethers' TypedDataEncoder) and its own ECDSA
 * (`signMessage`, noble secp256k1), and venues/aster/signing.ts must give the same digest and the same
 * signature for the same string, key and chain id, both ways: what ccxt's `sign()` sends is what ours
 * signs, and what ours sends is what ccxt's encoder signs. The key is the demonstration API-wallet key
 * Aster publishes in its v3 futures docs; the nonce is fixed by stubbing ccxt's clock (`milliseconds`).
 */
import { describe, expect, it } from 'vitest';
import ccxt from 'ccxt';
import { privateKeyToAccount } from 'viem/accounts';
import {
  ASTER_CHAIN_ID,
  REGISTRATION_CHAIN_ID,
  messageDigest,
  recoverSigner,
  registrationMsg,
  signMessage,
  signRequest,
  splitSigned,
} from '../../venues/aster/signing.js';
import { DOC_KEY, DOC_NONCE, DOC_ORDER, DOC_SIGNER, DOC_USER } from './aster-docs.js';

/** The ms clock ccxt is stubbed to (ccxt's nonce is ms × 1000): the docs' nonce's millisecond. */
const CLOCK_MS = 1748310859508;

/** ccxt's `aster` with the docs' key, its clock fixed at {@link CLOCK_MS}, signing for `chainId`. */
function ccxtAster(chainId: number) {
  const ex = new ccxt.aster({ privateKey: DOC_KEY, options: { v3ChainId: chainId } });
  ex.milliseconds = () => CLOCK_MS;
  return ex;
}

/** ccxt's own EIP-712 code: the digest and the signature of `Message(string msg)` in the Aster domain of `chainId`. */
function ccxtSigns(msg: string, chainId: number) {
  const ex = ccxtAster(chainId);
  const domain = {
    name: 'AsterSignTransaction',
    version: '1',
    chainId,
    verifyingContract: '0x0000000000000000000000000000000000000000',
  };
  const encoded = ex.ethEncodeStructuredData(domain, { Message: [{ name: 'msg', type: 'string' }] }, { msg });
  return { digest: ex.keccakMessage(encoded), signature: ex.signMessage(encoded, DOC_KEY) };
}

describe('Aster signing: ours against ccxt’s', () => {
  it('the docs’ key is the docs’ signer in both', () => {
    expect(privateKeyToAccount(DOC_KEY).address).toBe(DOC_SIGNER);
    expect(ccxtAster(1666).ethGetAddressFromPrivateKey(DOC_KEY)).toBe(DOC_SIGNER.toLowerCase());
  });

  for (const network of ['mainnet', 'testnet'] as const) {
    const chainId = ASTER_CHAIN_ID[network];

    it(`what ccxt's sign() sends for POST /fapi/v3/order we sign alike: same digest, same signature (${network}, ${chainId})`, async () => {
      const signed = ccxtAster(chainId).sign('v3/order', 'fapiPrivate', 'POST', {
        symbol: 'BTCUSDT',
        side: 'BUY',
        type: 'LIMIT',
        timeInForce: 'GTC',
        quantity: '0.001',
        price: '90000',
      });
      const parts = splitSigned(signed.body as string);
      if (!parts) throw new Error(`no signature in ${signed.body}`);
      // ccxt puts nonce (µs), user and signer (both the key's address) first.
      const signer = DOC_SIGNER.toLowerCase();
      expect(parts.msg).toBe(
        `nonce=${CLOCK_MS * 1000}&user=${signer}&signer=${signer}&symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.001&price=90000`,
      );
      expect(ccxtSigns(parts.msg, chainId).digest).toBe(messageDigest(parts.msg, chainId));
      expect(await signMessage(DOC_KEY, parts.msg, chainId)).toBe(parts.signature);
      expect(await recoverSigner(parts.msg, parts.signature, chainId)).toBe(signer);
    });

    it(`what our signRequest sends, ccxt's EIP-712 code signs alike (${network})`, async () => {
      const ours = await signRequest(DOC_KEY, DOC_ORDER, {
        nonce: DOC_NONCE,
        user: DOC_USER,
        signer: DOC_SIGNER,
        network,
      });
      const theirs = ccxtSigns(ours.msg, chainId);
      expect(theirs).toStrictEqual({ digest: messageDigest(ours.msg, chainId), signature: ours.signature });
    });
  }

  it('a GET is signed in the query string: ccxt’s query and our signature agree', async () => {
    const signed = ccxtAster(1666).sign('v3/openOrders', 'fapiPrivate', 'GET', { symbol: 'ETHUSDT' });
    const query = new URL(signed.url).search.slice(1);
    const parts = splitSigned(query);
    if (!parts) throw new Error(`no signature in ${signed.url}`);
    expect(parts.msg).toMatch(/&symbol=ETHUSDT$/);
    expect(await signMessage(DOC_KEY, parts.msg, 1666)).toBe(parts.signature);
  });

  it('agent registration (chainId = signatureChainId 56): our message signed by ccxt’s code gives our signature', async () => {
    const msg = registrationMsg({
      user: DOC_USER,
      nonce: DOC_NONCE.toString(),
      agentName: 'conformance',
      agentAddress: DOC_SIGNER,
      expired: '1867945395040',
      signatureChainId: String(REGISTRATION_CHAIN_ID),
      canSpotTrade: 'false',
      canPerpTrade: 'true',
      canWithdraw: 'false',
    });
    expect(ccxtSigns(msg, REGISTRATION_CHAIN_ID)).toStrictEqual({
      digest: messageDigest(msg, REGISTRATION_CHAIN_ID),
      signature: await signMessage(DOC_KEY, msg, REGISTRATION_CHAIN_ID),
    });
    // The same message in the trading domain is another digest.
    expect(messageDigest(msg, 1666)).not.toBe(messageDigest(msg, REGISTRATION_CHAIN_ID));
  });
});
