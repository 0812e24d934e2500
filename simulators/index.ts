/**
 * The four venue simulators together (tests, `npm run dev` with `VENUE_MODE=sim`): each serves its
 * venue's REST surface on 127.0.0.1, verifies every signature as the venue does, and matches
 * against the platform's canonical marks (`markOf(venue)(symbol)` → decimal string or null).
 * Also the end user's side of agent authorisation ({@link userAuthorization}): what the user's
 * own wallet does with the platform's authorisation request.
 */
import type { TypedDataDefinition } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startHyperliquidSimulator } from './hyperliquid.js';
import { startAsterSimulator } from './aster.js';
import { startPolymarketSimulator } from './polymarket.js';
import { startKalshiSimulator } from './kalshi.js';
import { loadVenueFeeds } from '../config.js';
import { generateKalshiAgentKey } from '../venues/kalshi/signing.js';

/** The member the platform's own Kalshi read key (the worker's `KALSHI_FEED_*`) is registered under on the simulator. */
export const KALSHI_FEED_MEMBER = 'platform-market-data';

/** The running simulators, their URLs as configuration, and `stop()`. */
export type Simulators = Awaited<ReturnType<typeof startSimulators>>;

/**
 * Starts every simulator on a free port; `markOf(venue)` gives each its mark source, except that with
 * `ownPrices` (default: `VENUE_FEEDS=live`, config.ts) every simulator prices from its own data (Hyperliquid: its
 * replay of the recorded ticks; Aster: that replay +5 bps with a wider touch, simulators/aster-prices.ts;
 * Polymarket: its replay of the recorded daily prices with its own book levels, simulators/polymarket-prices.ts;
 * Kalshi: that replay one cent higher with its own spread, simulators/kalshi-prices.ts): the worker's live feeds
 * then publish the `*.HL`, `*.ASTER`, `*.PM` and `*.KX` marks from the simulators' WebSockets, and a simulator
 * pricing from those marks would only echo itself. With `ownPrices` a fresh RSA key is also registered with the
 * Kalshi simulator (read scope, member {@link KALSHI_FEED_MEMBER}) and handed over in `env` as `KALSHI_FEED_KEY_ID`
 * and `KALSHI_FEED_PRIVATE_KEY` (PEM): Kalshi signs its socket's handshake, so the worker needs a key to follow it.
 */
export async function startSimulators(
  markOf: (venue: string) => (symbol: string) => Promise<string | null>,
  opts: { ownPrices?: boolean } = {},
) {
  const ownPrices = opts.ownPrices ?? loadVenueFeeds() === 'live';
  const [hyperliquid, aster, polymarket, kalshi] = await Promise.all([
    startHyperliquidSimulator(ownPrices ? {} : { markOf: markOf('hyperliquid') }),
    startAsterSimulator(ownPrices ? {} : { markOf: markOf('aster') }),
    startPolymarketSimulator(ownPrices ? {} : { markOf: markOf('polymarket') }),
    startKalshiSimulator(ownPrices ? {} : { markOf: markOf('kalshi') }),
  ]);
  const feedKey = ownPrices ? generateKalshiAgentKey() : null;
  const feedEnv = feedKey
    ? {
        KALSHI_FEED_KEY_ID: kalshi.registerKey(KALSHI_FEED_MEMBER, feedKey.publicKeyPem, { scopes: ['read'] }),
        KALSHI_FEED_PRIVATE_KEY: feedKey.privateKeyPem,
      }
    : {};
  return {
    hyperliquid,
    aster,
    polymarket,
    kalshi,
    /** Configuration pointing every routed venue at its simulator (config.ts names). */
    env: {
      HYPERLIQUID_API_URL: hyperliquid.url,
      ASTER_API_URL: aster.url,
      POLYMARKET_API_URL: polymarket.url,
      KALSHI_API_URL: kalshi.url,
      ...feedEnv,
    } as Record<string, string>,
    async stop() {
      await Promise.all([hyperliquid.close(), aster.close(), polymarket.close(), kalshi.close()]);
    },
  };
}

/** A venue user: their own wallet key; `owner` is their account on the venue (Kalshi: a member id). */
export interface VenueUser {
  owner: string;
  privateKey: `0x${string}`;
}

/** The user's wallet as a venue account: the wallet address, or on Kalshi a member id derived from it. */
export function venueUser(venue: string, privateKey: `0x${string}`): VenueUser {
  const address = privateKeyToAccount(privateKey).address;
  return { owner: venue === 'kalshi' ? `member-${address.slice(2, 12).toLowerCase()}` : address, privateKey };
}

/**
 * What {@link userAuthorization} needs of the simulators: the Kalshi simulator's API-key page (its
 * `registerKey`), and optionally the Polymarket simulator's `linkOwner` (the user funds the agent's wallet).
 */
export interface KalshiKeyPage {
  kalshi: { registerKey(member: string, publicKeyPem: string): string | Promise<string> };
  polymarket?: { linkOwner(owner: string, wallet: string): void };
}

/**
 * The user's answer to an authorisation request (`POST /accounts/{id}/agents` → `authorization`):
 * their wallet's EIP-712 signature of `typedData`, or on Kalshi the key id the venue's web
 * interface (here the simulator, `sims`) assigns when they register `publicKeyPem`.
 */
export async function userAuthorization(
  sims: KalshiKeyPage,
  user: VenueUser,
  authorization: { kind: string; typedData?: TypedDataDefinition; publicKeyPem?: string },
): Promise<string> {
  if (authorization.kind === 'rsa_public_key') return sims.kalshi.registerKey(user.owner, authorization.publicKeyPem!);
  // Polymarket: the agent trades from its own wallet, which the user funds (venues/polymarket/adapter.ts).
  const message = authorization.typedData!.message as { funder?: unknown; signer?: unknown } | undefined;
  if (authorization.typedData!.primaryType === 'AuthorizeSigner' && typeof message?.signer === 'string')
    sims.polymarket?.linkOwner(user.owner, message.signer);
  return privateKeyToAccount(user.privateKey).signTypedData(authorization.typedData!);
}
