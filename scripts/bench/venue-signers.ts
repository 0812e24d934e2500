/**
 * One representative signed request per routed venue, for the signing-throughput benchmark
 * (scripts/bench/venues.ts): `prepare()` builds keys and inputs once and returns `sign(i)`, which
 * produces the i-th signature exactly as dispatch does (fresh nonce or timestamp per call).
 */
import { randomUUID } from 'node:crypto';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import type { RoutedVenue, VenueOrderRequest } from '../../venues/types.js';
import { signL1Action } from '../../venues/hyperliquid/signing.js';
import { orderWire } from '../../venues/hyperliquid/wire.js';
import { signRequest } from '../../venues/aster/signing.js';
import { orderParams } from '../../venues/aster/wire.js';
import { generateKalshiAgentKey, kalshiAuthHeaders } from '../../venues/kalshi/signing.js';
import { signOrder } from '../../venues/polymarket/signing.js';
import { POLYMARKET_SYMBOLS } from '../../domain/market/venues/polymarket.js';

const order: VenueOrderRequest = {
  clientOrderId: '0x00000000000000000000000000000001',
  symbol: 'ETH.HL',
  side: 'buy',
  type: 'limit',
  qty: '0.01',
  price: '4300',
  triggerPrice: null,
  stopLimitPrice: null,
  reduceOnly: false,
  timeInForce: 'Gtc',
  markPrice: '4300',
  leverage: '1',
};

/** Per venue: what is signed, and the signer factory. */
export const VENUE_SIGNERS: Record<RoutedVenue, { what: string; prepare(): Promise<(i: number) => Promise<unknown>> }> =
  {
    hyperliquid: {
      what: 'EIP-712 phantom agent over msgpack(order action)',
      async prepare() {
        const key = generatePrivateKey();
        const action = { type: 'order', orders: [orderWire(order)], grouping: 'na' };
        const base = Date.now();
        return (i) => signL1Action(key, action, base + i, { network: 'mainnet' });
      },
    },
    aster: {
      what: 'EIP-712 Message over the k=v parameter string',
      async prepare() {
        const key = generatePrivateKey();
        const signer = privateKeyToAddress(key);
        const user = privateKeyToAddress(generatePrivateKey());
        const params = orderParams({ ...order, symbol: 'ETH.ASTER' });
        const base = BigInt(Date.now()) * 1000n;
        return (i) => signRequest(key, params, { nonce: base + BigInt(i), user, signer, network: 'mainnet' });
      },
    },
    polymarket: {
      what: 'EIP-712 V2 Order',
      async prepare() {
        const key = generatePrivateKey();
        const signer = privateKeyToAddress(key);
        const tokenId = POLYMARKET_SYMBOLS[0].venueSymbol!;
        return (i) =>
          signOrder(
            key,
            {
              salt: String(i + 1),
              maker: signer,
              signer,
              tokenId,
              makerAmount: '5000000',
              takerAmount: '10000000',
              side: 'BUY',
              signatureType: 2,
              timestamp: String(Date.now()),
              metadata: `0x${'0'.repeat(64)}`,
              builder: `0x${'0'.repeat(64)}`,
            },
            'mainnet',
            false,
          );
      },
    },
    kalshi: {
      what: 'RSA-PSS-SHA256 (2048-bit) over timestamp+METHOD+path',
      async prepare() {
        // The PEM, as the adapter passes the agent's key (signing.ts keeps its KeyObject).
        const { privateKeyPem } = generateKalshiAgentKey();
        const keyId = randomUUID();
        const url = 'https://api.elections.kalshi.com/trade-api/v2/portfolio/orders';
        const base = Date.now();
        return async (i) => kalshiAuthHeaders(keyId, privateKeyPem, 'POST', url, base + i);
      },
    },
  };
