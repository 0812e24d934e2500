/**
 * The contract every routed venue adapter implements (docs/api.md §1 "routed execution", §2.6, §3.2;
 * docs/venues.md for each venue's signing and wire format). An adapter is pure wire format,
 * signing and HTTP: it never touches PostgreSQL. The routed-dispatch activities
 * (modules/oms/activities/routed.ts) load the intent and the agent key, call the adapter and record
 * what it returns.
 *
 * Units: sizes in contracts (base units; prediction markets: shares/contracts of one outcome),
 * prices in USD per contract (prediction markets: probability units 0–1, i.e. USD per share),
 * fees in USD, times in epoch milliseconds. Every amount is a decimal string; no JS number ever
 * carries a price, size or fee.
 */
import { ROUTED_VENUES, type OrderStatus, type RoutedVenue } from '../domain/oms/intent.js';

/** What one venue request sends: the HTTP method, its headers and the exact body text (none: no body). */
export interface VenueRequestInit {
  method: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * How the adapters send a request (`VenueContext.fetch`): the URL and {@link VenueRequestInit} in; the HTTP status,
 * whether it is 2xx and the body text out. The global `fetch` fits it (the fault tests wrap it); the platform sends
 * through venues/http.ts `venueFetch`. Redirects are not followed (a venue API answers where it is asked).
 */
export type VenueFetch = (
  url: string,
  init: VenueRequestInit,
) => Promise<{ status: number; ok: boolean; text(): Promise<string> }>;

/** The routed venues (domain/oms/intent.ts), re-exported beside the adapter contract they index. */
export { ROUTED_VENUES, type RoutedVenue };

/**
 * The agent key of one account on one venue, decrypted, as the signing code needs it. Only the
 * signing activity ever holds this object; it is never logged, stored or returned.
 * - `evm`: a secp256k1 key (Hyperliquid agent, Aster API wallet, Polymarket signer).
 * - `rsa`: a Kalshi API key: the key id the venue assigned and the RSA private key (PKCS#8 PEM).
 */
export type AgentKey =
  | { kind: 'evm'; privateKey: `0x${string}`; address: `0x${string}` }
  | { kind: 'rsa'; keyId: string; privateKeyPem: string };

/** Everything an adapter call needs besides its arguments. */
export interface VenueContext {
  /** Base URL of the venue's REST API (config `HYPERLIQUID_API_URL`, ...; a simulator's URL in tests). */
  baseUrl: string;
  /** `mainnet` or `testnet` where the venue signs differently (Hyperliquid source a/b, Aster chain id). */
  network: 'mainnet' | 'testnet';
  agent: AgentKey;
  /**
   * The end user's account on the venue: the master wallet address (Hyperliquid `user`, Aster
   * `user`, Polymarket `maker`/funder), or the Kalshi member id. Reads go to this, never to the agent.
   */
  owner: string;
  /**
   * Venue API credentials derived once at authorisation (Polymarket L2 `{ apiKey, secret, passphrase }`);
   * absent for venues that have none.
   */
  apiCredentials?: Record<string, string>;
  /**
   * The next nonce of this agent key: strictly increasing, allocated serially across all processes
   * (db/agent-nonces.ts). Unit as the venue wants it: the adapter passes `unit`.
   */
  nextNonce(unit: 'ms' | 'us'): Promise<bigint>;
  /** How requests are sent ({@link VenueFetch}: the platform's venues/http.ts `venueFetch`; the global `fetch` fits too). */
  fetch: VenueFetch;
}

/** One order as the platform sends it (from a composed intent). */
export interface VenueOrderRequest {
  /** The venue-format client order id, from {@link VenueAdapter.clientOrderId} of the intent id. */
  clientOrderId: string;
  /** The platform's venue-suffixed symbol, e.g. `BTC.HL` (the adapter maps it to the venue's own id). */
  symbol: string;
  side: 'buy' | 'sell';
  type: 'market' | 'limit' | 'stop' | 'stop_limit' | 'take_profit';
  qty: string;
  price: string | null;
  triggerPrice: string | null;
  stopLimitPrice: string | null;
  reduceOnly: boolean;
  timeInForce: 'Gtc' | 'Ioc' | 'Alo';
  /** The canonical mark at dispatch: the reference for a market order's protective limit price. */
  markPrice: string;
  /** Leverage asked for (perp venues that set it per order or per symbol). */
  leverage: string;
}

/** An order as the venue reports it, mapped to the platform's vocabulary. */
export interface VenueOrder {
  venueOrderId: string;
  clientOrderId: string | null;
  /** Platform symbol (`BTC.HL`); the venue's own id when the platform does not list it. */
  symbol: string;
  side: 'buy' | 'sell';
  type: string;
  qty: string;
  price: string | null;
  /** docs/api.md §3.2 status: `open`, `filled`, `canceled`, `rejected`, `triggered`, `expired`. */
  status: OrderStatus;
  filledQty: string;
  avgFillPrice: string | null;
  /** The venue's reason for a rejection or cancellation, verbatim. */
  reason?: string;
  /** Last change, epoch ms. */
  updatedAt: number;
}

/** One execution as the venue reports it. */
export interface VenueFill {
  venueTradeId: string;
  venueOrderId: string;
  clientOrderId: string | null;
  symbol: string;
  side: 'buy' | 'sell';
  qty: string;
  price: string;
  /** Fee charged, USD (negative = rebate). */
  feeUsd: string;
  /** Epoch ms. */
  time: number;
}

/** One open position of the owner as the venue reports it (decimal strings; USD, contracts). */
export interface VenuePosition {
  /** Platform symbol (`BTC.HL`, `<ticker>-YES.KX`); the venue's own id when the platform does not list it. */
  symbol: string;
  /** Signed contracts (+ long, − short); prediction markets: contracts of the outcome the symbol names. */
  qty: string;
  avgEntryPrice: string;
  /** The venue's own mark of the position; null when the venue reports none with it. */
  markPrice: string | null;
  /** The venue's unrealised PnL of the position, USD; null when it reports none. */
  unrealizedPnlUsd: string | null;
  /** The leverage the venue holds the position at; null where positions are fully paid (prediction markets). */
  leverage: string | null;
}

/**
 * The owner's money and open positions on the venue (docs/api.md §2.5 "Routed accounts"), USD as the venue
 * values it, in the platform's terms: `balanceUsd` cash (deposits + realised PnL − fees, before unrealised
 * PnL; on a prediction market cash plus the cost of the held contracts), `equityUsd` = balance + unrealised,
 * `marginUsedUsd` what the positions hold (a prediction market: their value), `marginAvailableUsd` what the
 * venue leaves free to trade or withdraw.
 */
export interface VenueAccount {
  balanceUsd: string;
  unrealizedPnlUsd: string;
  equityUsd: string;
  marginUsedUsd: string;
  marginAvailableUsd: string;
  positions: VenuePosition[];
}

/**
 * What the end user's own wallet must sign to authorise the agent (docs/api.md §1 custody): the API
 * returns it, the user signs it, and {@link VenueAdapter.submitAuthorization} hands the signed
 * authorisation to the venue. `eip712` is signed with `eth_signTypedData_v4`; `rsa_public_key`
 * (Kalshi) is registered by the user in the venue's own interface, which answers with a key id.
 */
export type AuthorizationRequest =
  | { kind: 'eip712'; typedData: Eip712TypedData; action?: Record<string, unknown> }
  | { kind: 'rsa_public_key'; publicKeyPem: string };

/** EIP-712 typed data as `eth_signTypedData_v4` (and viem's `signTypedData`) takes it; JSON-safe (no bigint). */
export interface Eip712TypedData {
  domain: Record<string, unknown>;
  types: Record<string, { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
}

/**
 * Who signs a self-signed order (docs/api.md §3.1): `owner` is the end user's account on the venue
 * (as {@link VenueContext.owner}), `signer` the credential's signer address, `nonce` the one
 * allocated when the intent was composed (the venue's unit: Hyperliquid ms, Aster µs).
 */
export interface SelfSignedAuth {
  owner: string;
  signer: string;
  nonce: bigint;
}

/**
 * Orders signed by the credential's own key instead of the agent's (docs/api.md §3.1, self-signed
 * routed intents): the EIP-712 typed data of the exact request the venue verifies, and that request
 * sent with the signature. Reads and cancels of the order stay the agent's.
 */
export interface SelfSignedOrders {
  /**
   * Whose key the venue takes: `owner` the owner's own wallet (the venue applies a signed order to
   * the signer's account, so only the owner's own key is known to be this account's), `api_wallet`
   * a key the owner approved on the venue (the request names the owner; the venue checks the approval).
   */
  signer: 'owner' | 'api_wallet';
  /** The typed data the signer signs: the venue's own EIP-712 message over `order` with `auth`. */
  typedData(order: VenueOrderRequest, auth: SelfSignedAuth, network: 'mainnet' | 'testnet'): Eip712TypedData;
  /**
   * Sends `order` exactly as {@link typedData} described it, with `signature` (`0x` + 130 hex);
   * returns the venue's view of it right after acceptance. @throws as {@link VenueAdapter.place}.
   */
  place(ctx: VenueContext, order: VenueOrderRequest, auth: SelfSignedAuth, signature: string): Promise<VenueOrder>;
}

/** The venue refused a request; `reason` is the venue's own message (docs/api.md §7 `422 venue_rejected`). */
export class VenueRejected extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'VenueRejected';
  }
}

/**
 * One routed venue. Every method may throw {@link VenueRejected} (the venue said no: not retried)
 * or any other error (transport: the activity retries; idempotency comes from `clientOrderId`).
 */
export interface VenueAdapter {
  venue: RoutedVenue;
  /** Venue-format client order id derived deterministically from the platform intent id. */
  clientOrderId(intentId: string): string;
  /**
   * Places one order; returns the venue's view of it right after acceptance. An adapter that reads the order back
   * after the venue accepted it (Polymarket: its answer names the order, `GET /data/order` gives its state) calls
   * `acknowledged` with the venue order id first, once, so the caller can record the order as at the venue while that
   * read runs; the others answer at once and never call it.
   */
  place(
    ctx: VenueContext,
    order: VenueOrderRequest,
    acknowledged?: (venueOrderId: string) => void,
  ): Promise<VenueOrder>;
  /**
   * Orders signed by the credential's own key; absent where the venue cannot take one (Kalshi signs
   * requests with an RSA API key, Polymarket takes an order only from its signer's own API key).
   */
  selfSigned?: SelfSignedOrders;
  /** The order with this client order id, or null when the venue never saw it. */
  findByClientOrderId(ctx: VenueContext, symbol: string, clientOrderId: string): Promise<VenueOrder | null>;
  /** The order with this venue id, or null when unknown. */
  status(ctx: VenueContext, symbol: string, venueOrderId: string): Promise<VenueOrder | null>;
  /** Cancels a working order; returns its final state (a filled order is returned as filled). */
  cancel(ctx: VenueContext, symbol: string, venueOrderId: string): Promise<VenueOrder>;
  /** Executions of the owner since `sinceMs` (inclusive), oldest first; optionally of one order. */
  fills(ctx: VenueContext, opts: { sinceMs: number; symbol?: string; venueOrderId?: string }): Promise<VenueFill[]>;
  /** Every order of the owner the venue reports (open and recent), including ones placed in the venue's own interface. */
  orders(ctx: VenueContext): Promise<VenueOrder[]>;
  /** The owner's balances and open positions on the venue (reads, signed as the venue requires). */
  account(ctx: VenueContext): Promise<VenueAccount>;
  /**
   * What the owner signs to authorise `agentAddress` (or, for RSA venues, the public key to register)
   * until `expiresAt` (epoch ms). `nonce` is epoch ms.
   */
  authorizationRequest(args: {
    owner: string;
    agentAddress: string;
    agentPublicKeyPem?: string;
    agentName: string;
    expiresAt: number;
    nonce: number;
    network: 'mainnet' | 'testnet';
  }): AuthorizationRequest;
  /**
   * Verifies the owner's signature over `request` locally (recovers the signer and compares it to
   * `owner`; false on mismatch) without calling the venue.
   */
  verifyAuthorization(args: { owner: string; request: AuthorizationRequest; signature: string }): Promise<boolean>;
  /**
   * Hands the signed authorisation to the venue (Hyperliquid `approveAgent`, Aster
   * `registerAndApproveAgent`, Polymarket API-key derivation). Returns venue API credentials to
   * keep encrypted with the agent (Polymarket L2), the Kalshi key id, or nothing.
   */
  submitAuthorization(
    ctx: Omit<VenueContext, 'apiCredentials'>,
    args: { request: AuthorizationRequest; signature: string; keyId?: string },
  ): Promise<Record<string, string> | undefined>;
}
