/**
 * MikroORM entities (defineEntity, MikroORM 7). Every tenant-owned entity carries `tenantId`
 * and is covered by the `tenant` filter that is on by default (db/orm.ts): a query without
 * tenant parameters fails instead of leaking rows across tenants (docs/architecture.md "Data and events").
 *
 * Decimal columns are unconstrained PostgreSQL `numeric`, surfaced as decimal strings.
 */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { RiskEnvelope } from '../domain/auth/envelope.js';
import type { VenueSigning } from '../domain/oms/signing.js';

/** An unconstrained `numeric` column carried as a decimal string (USD, contracts, prices). */
const numeric = () => p.decimal('string').columnType('numeric');
const createdAt = () => p.datetime().onCreate(() => new Date());

/** A branded deployment (docs/api.md §2.4, §5.6). Not itself tenant-filtered: resolution reads it. */
export const Tenant = defineEntity({
  name: 'Tenant',
  tableName: 'tenants',
  properties: {
    id: p.string().primary(),
    slug: p.string().unique(),
    displayName: p.string(),
    /**
     * Registered origins, e.g. `http://localhost:3000`; a Host header matches its host:port. A host
     * belongs to one tenant: every write is mirrored into `tenant_origin_hosts` (primary key `host`)
     * by a trigger, so claiming another tenant's host fails with a unique violation (migration UniqueOrigins).
     */
    origins: p.json<string[]>(),
    suspended: p.boolean().default(false),
    /** The platform's own tenant: the default when a request carries neither Origin nor Host. */
    isPlatform: p.boolean().default(false),
    /** Fee schedule in basis points, e.g. `{ makerBps: '1.5', takerBps: '4.5' }`. */
    feeSchedule: p.json<{ makerBps: string; takerBps: string }>(),
    /** White-label configuration (domain/tenant/config.ts shapes and defaults); `{}` = defaults. */
    branding: p.json<Record<string, unknown>>().onCreate(() => ({})),
    theme: p.json<Record<string, unknown>>().onCreate(() => ({})),
    flags: p.json<Record<string, unknown>>().onCreate(() => ({})),
    venues: p.json<Record<string, unknown>>().onCreate(() => ({})),
    plan: p.json<Record<string, unknown>>().onCreate(() => ({})),
    /** Policy of the accounts its traders open themselves: default trading group, deposit bounds. */
    accounts: p.json<Record<string, unknown>>().onCreate(() => ({})),
    createdAt: createdAt(),
  },
});

/** Per-venue leverage caps an account's orders are checked against at compose (docs/api.md §2.6). */
export const TradingGroup = defineEntity({
  name: 'TradingGroup',
  tableName: 'trading_groups',
  properties: {
    id: p.string().primary(),
    tenantId: p.string().index(),
    name: p.string(),
    /** Venue slug → maximum leverage, e.g. `{ paper: 50 }`. */
    leverageCaps: p.json<Record<string, number>>(),
    createdAt: createdAt(),
  },
});

/** A trading account (docs/api.md §2.5, §4.3). `executionMode` is a property of the account (docs/api.md §1). */
export const Account = defineEntity({
  name: 'Account',
  tableName: 'accounts',
  properties: {
    id: p.string().primary(),
    tenantId: p.string().index(),
    /** Human-facing number, e.g. `PA-7K3Q9X`. */
    accountNumber: p.string().unique(),
    /** The trader (person or system) that owns it; every credential with the same owner sees it. */
    ownerId: p.string().index(),
    name: p.string(),
    /** `internalised` (matched by the platform engine, venue `paper`) or `routed`. */
    executionMode: p.string().default('internalised'),
    baseCurrency: p.string().default('USD'),
    tradingGroupId: p.string().nullable(),
    settings: p.json<Record<string, unknown>>(),
    /** Set while the account is suspended (§5.4 prop:manage): compose refuses its orders. */
    suspendedAt: p.datetime().nullable(),
    suspensionReason: p.text().nullable(),
    createdAt: createdAt(),
  },
});

/** Cash balance of an account on one venue, USD (deposits + realised PnL − fees). */
export const AccountBalance = defineEntity({
  name: 'AccountBalance',
  tableName: 'account_balances',
  properties: {
    accountId: p.string().primary(),
    venue: p.string().primary(),
    tenantId: p.string().index(),
    balanceUsd: numeric(),
  },
});

/** An API credential (docs/api.md §2.1). The secret is stored only as a scrypt hash. */
export const Credential = defineEntity({
  name: 'Credential',
  tableName: 'credentials',
  properties: {
    id: p.string().primary(),
    tenantId: p.string().index(),
    apiKey: p.string().unique(),
    /** The trader this credential acts for (rotation issues a second credential with the same owner). */
    ownerId: p.string().index(),
    /** `scrypt$<saltHex>$<hashHex>`. */
    secretHash: p.string().hidden(),
    audience: p.string(),
    /** Trader tier: `readonly` | `liquidation` | `fullTrading`; null for operators. */
    tier: p.string().nullable(),
    /** Operator scopes; empty for traders. */
    scopes: p.json<string[]>(),
    /** The trader's active account. */
    accountId: p.string().nullable(),
    /** Set when the credential signs its own intents (docs/api.md §3.1); null = platform-signed. */
    signerAddress: p.string().nullable(),
    label: p.string(),
    revokedAt: p.datetime().nullable(),
    /**
     * This credential's own request rate limit (docs/api.md §8 "Rate limits"): requests per second and
     * the burst allowance on top; null = the deployment's `RATE_LIMIT_PER_SECOND` / `RATE_LIMIT_BURST`.
     */
    rateLimitPerSecond: p.integer().nullable(),
    rateLimitBurst: p.integer().nullable(),
    /**
     * A trader's risk envelope (domain/auth/envelope.ts `RiskEnvelope`, docs/api.md §2.1): USD decimal
     * strings and a leverage number, each absent = no limit; `{}` for operators and unlimited traders.
     */
    envelope: p.json<RiskEnvelope>().onCreate(() => ({})),
    /** Venue slugs and venue-suffixed symbols compose accepts from this trader; null = every one. */
    allowedVenues: p.json<string[]>().nullable(),
    allowedSymbols: p.json<string[]>().nullable(),
    /**
     * Bumped by every rotation of the secret (docs/api.md §5.2); a bearer carries the version it was
     * minted under (`sv`) and is refused once it differs.
     */
    secretVersion: p.integer().default(1),
    secretRotatedAt: p.datetime().nullable(),
    createdAt: createdAt(),
  },
});

/** A revoked bearer token (docs/api.md §5.2), kept until its own expiry. */
export const RevokedToken = defineEntity({
  name: 'RevokedToken',
  tableName: 'revoked_tokens',
  properties: {
    jti: p.string().primary(),
    expiresAt: p.datetime(),
  },
});

/** A single-use 60 s WebSocket handshake token (docs/api.md §2.3, §6.2), stored as a SHA-256 hash. */
export const HandshakeToken = defineEntity({
  name: 'HandshakeToken',
  tableName: 'handshake_tokens',
  properties: {
    tokenHash: p.string().primary(),
    tenantId: p.string().index(),
    credentialId: p.string().index(),
    accountId: p.string().nullable(),
    /** `risk` or `quotes`. */
    channel: p.string(),
    expiresAt: p.datetime(),
    consumedAt: p.datetime().nullable(),
    createdAt: createdAt(),
  },
});

/** A stored `Idempotency-Key` outcome (docs/api.md §8): (credential, key) → payload hash and response, 24 h. */
export const IdempotencyRecord = defineEntity({
  name: 'IdempotencyRecord',
  tableName: 'idempotency_records',
  properties: {
    credentialId: p.string().primary(),
    key: p.string().primary(),
    requestHash: p.string(),
    /** `in_progress` until the first request answers, then `done`. */
    status: p.string(),
    responseStatus: p.integer().nullable(),
    responseBody: p.json<unknown>().nullable(),
    expiresAt: p.datetime(),
    createdAt: createdAt(),
  },
});

/**
 * An order intent (docs/api.md §2.6, §3.1) and, once dispatched, its working order on the venue.
 * `state` is the intent lifecycle; `orderStatus` the venue order status of docs/api.md §3.2.
 */
export const OrderIntent = defineEntity({
  name: 'OrderIntent',
  tableName: 'order_intents',
  properties: {
    id: p.string().primary(),
    tenantId: p.string().index(),
    accountId: p.string().index(),
    credentialId: p.string().index(),
    clientOrderId: p.string().nullable(),
    venue: p.string(),
    symbol: p.string(),
    side: p.string(),
    type: p.string(),
    qty: numeric(),
    price: numeric().nullable(),
    triggerPrice: numeric().nullable(),
    stopLimitPrice: numeric().nullable(),
    reduceOnly: p.boolean(),
    timeInForce: p.string(),
    leverage: numeric(),
    state: p.string(),
    /** `open` | `filled` | `canceled` | `rejected` | `triggered` | `expired`; null before dispatch. */
    orderStatus: p.string().nullable(),
    venueOrderId: p.string().nullable(),
    /** Routed venues: the client order id sent to the venue, derived from the intent id (idempotent dispatch). */
    venueClientOrderId: p.string().nullable(),
    filledQty: numeric(),
    avgFillPrice: numeric().nullable(),
    lastEvent: p.string(),
    rejectReason: p.string().nullable(),
    /** A flatten or reverse leg: its batch and its place in it (1-based, cancels counted). */
    batchId: p.string().nullable(),
    batchLeg: p.integer().nullable(),
    /** The resting remainder's trigger state (stop/take-profit/stop-limit), as the engine left it. */
    triggered: p.boolean().default(false),
    /** A self-signed intent on a routed venue: owner, signer, nonce, mark and (once signed) signature of its venue request (docs/api.md §3.1). */
    venueSigning: p.json<VenueSigning>().nullable(),
    createdAt: createdAt(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

/** One execution (docs/api.md §2.8). Volume is computed from fills. */
export const Fill = defineEntity({
  name: 'Fill',
  tableName: 'fills',
  properties: {
    /** Platform-minted, stable: `<intentId>-<n>`. Internalised ids resolve nowhere off-platform (docs/api.md §1). */
    id: p.string().primary(),
    tenantId: p.string().index(),
    accountId: p.string().index(),
    intentId: p.string().index(),
    venue: p.string(),
    symbol: p.string(),
    side: p.string(),
    qty: numeric(),
    price: numeric(),
    feeUsd: numeric(),
    liquidity: p.string(),
    venueOrderId: p.string(),
    venueTradeId: p.string(),
    /** Realised PnL of this fill before fees, USD. */
    realizedPnlUsd: numeric(),
    executedAt: p.datetime(),
  },
});

/** A net position per account, venue and symbol. `qty` is signed contracts (+ long, − short). */
export const Position = defineEntity({
  name: 'Position',
  tableName: 'positions',
  properties: {
    accountId: p.string().primary(),
    venue: p.string().primary(),
    symbol: p.string().primary(),
    tenantId: p.string().index(),
    qty: numeric(),
    avgEntryPrice: numeric(),
    realizedPnlUsd: numeric(),
    /** Fees paid opening the open quantity, USD; each close moves its pro-rata share into the trade's `feesUsd`. */
    entryFeesUsd: numeric().default('0'),
    leverage: numeric(),
    openedAt: p.datetime().nullable(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

/** A closed round trip (docs/api.md §2.8): an entry matched with its exit. PnL is computed from trades. */
export const Trade = defineEntity({
  name: 'Trade',
  tableName: 'trades',
  properties: {
    id: p.string().primary(),
    tenantId: p.string().index(),
    accountId: p.string().index(),
    venue: p.string(),
    symbol: p.string(),
    /** `long` or `short`. */
    side: p.string(),
    qty: numeric(),
    entryPrice: numeric(),
    exitPrice: numeric(),
    realizedPnlUsd: numeric(),
    /** Fees of the closing fill attributed to this trade, USD. */
    feesUsd: numeric(),
    openedAt: p.datetime(),
    closedAt: p.datetime(),
    /** The fill that closed it; null for a manual (imported) trade. */
    exitFillId: p.string().unique().nullable(),
    /** `platform` (paired from fills) or `manual` (imported, docs/api.md §2.10: PnL yes, volume no). */
    source: p.string().default('platform'),
  },
});

/**
 * The append-only account event log (docs/architecture.md): backs `/accounts/{id}/events`, `/ws/risk`
 * frames (their `seq`) and webhooks. `seq` is per account, gap-free, assigned under the account lock.
 * The table also has `xact_id` (the writing transaction, `pg_current_xact_id()` by default; migration
 * EventCommitOrder), read only by the webhook dispatcher in SQL.
 */
export const AccountEvent = defineEntity({
  name: 'AccountEvent',
  tableName: 'account_events',
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    tenantId: p.string().index(),
    accountId: p.string(),
    seq: p.integer(),
    /** e.g. `intent.filled`, `position.changed`. */
    kind: p.string(),
    /** `/ws/risk` topic, e.g. `Order-Intent-Changed`. */
    topic: p.string(),
    /** `/ws/risk` frame type, e.g. `Order-Intent-Update`. */
    frameType: p.string(),
    venue: p.string().nullable(),
    data: p.json<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  uniques: [{ properties: ['accountId', 'seq'] }],
});

/** The latest canonical mark per venue and symbol (docs/architecture.md "Market data"). Not tenant-owned. */
export const Mark = defineEntity({
  name: 'Mark',
  tableName: 'marks',
  properties: {
    venue: p.string().primary(),
    symbol: p.string().primary(),
    mark: numeric(),
    bid: numeric(),
    ask: numeric(),
    /** `{ bids: [[price, size], ...], asks: [...] }` as decimal strings. */
    book: p.json<{ bids: [string, string][]; asks: [string, string][] }>(),
    ts: p.datetime(),
  },
});

/**
 * One sample of an account's state on a venue (docs/api.md §2.5 fields, §4.3 `state/history`), USD decimal
 * strings: written in the transaction of every change of the account's state (reason `deposit`,
 * `fill`, `funding`) and once per funding hour for accounts holding positions (`hourly`, with
 * `hour` set; one per account, venue and hour). db/state-snapshots.ts writes them.
 */
export const AccountStateSnapshot = defineEntity({
  name: 'AccountStateSnapshot',
  tableName: 'account_state_snapshots',
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    tenantId: p.string().index(),
    accountId: p.string(),
    venue: p.string(),
    ts: p.datetime(),
    /** `deposit` | `fill` | `funding` | `hourly` | `backfill` (the migration's first sample). */
    reason: p.string(),
    /** The funding hour of a sample written by the hourly run; null otherwise. */
    hour: p.datetime().nullable(),
    equityUsd: numeric(),
    balanceUsd: numeric(),
    unrealizedPnlUsd: numeric(),
    marginUsedUsd: numeric(),
    marginAvailableUsd: numeric(),
    openPositions: p.integer(),
  },
});

/**
 * The agent key of one account on one routed venue (docs/api.md §1 custody, §7 agent codes). The platform
 * generates the key; `encryptedKey` is AES-256-GCM under a configured key (`keyVersion` names it,
 * so keys rotate: domain/custody/vault.ts). The end user's own wallet authorises the agent
 * (`authorization` is what they signed, `authorizationSignature` their signature); `expiresAt` is
 * the authorisation's expiry. At most one non-revoked row per account and venue.
 * `status`: `pending_authorization` → `active` → `revoked`.
 */
export const AgentWallet = defineEntity({
  name: 'AgentWallet',
  tableName: 'agent_wallets',
  properties: {
    id: p.string().primary(),
    tenantId: p.string().index(),
    accountId: p.string().index(),
    venue: p.string(),
    /** The user's account on the venue: master wallet address, or the Kalshi member id. */
    owner: p.string(),
    /** The agent's public identity: EVM address, or (Kalshi) the key id once registered. */
    agentAddress: p.string(),
    agentName: p.string(),
    /** `<keyVersion>` ciphertext, base64 `iv.tag.ciphertext` of the private key (never returned). */
    encryptedKey: p.text().hidden(),
    keyVersion: p.string(),
    /** Venue API credentials obtained at authorisation (Polymarket L2), encrypted like the key. */
    encryptedApiCredentials: p.text().nullable().hidden(),
    status: p.string(),
    /** What the owner was asked to sign (typed data, or the public key to register). */
    authorization: p.json<Record<string, unknown>>(),
    authorizationSignature: p.text().nullable(),
    expiresAt: p.datetime(),
    authorizedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: createdAt(),
  },
});

/**
 * A prop firm of a tenant (docs/api.md §1 custody rules, §4.8; migration PropFirm documents each column).
 * `ownerAddress` is the operator's multisig that owns the deployed `PropInstance`.
 * `status`: `draft` → `deploying` → `deployed` → `live` ⇄ `paused`.
 */
export const Firm = defineEntity({
  name: 'Firm',
  tableName: 'firms',
  properties: {
    id: p.string().primary(),
    tenantId: p.string().index(),
    name: p.string(),
    ownerAddress: p.string(),
    chainId: p.integer(),
    stablecoinAddress: p.string(),
    status: p.string().default('draft'),
    instanceAddress: p.string().nullable(),
    rulesHash: p.string().nullable(),
    deployTxHash: p.string().nullable(),
    deployBlock: p.bigint('string').nullable(),
    deployedAt: p.datetime().nullable(),
    liveAt: p.datetime().nullable(),
    pausedAt: p.datetime().nullable(),
    createdAt: createdAt(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

/** Per-account order limits (USD notional; null = no limit), checked at compose. */
export const RiskProfile = defineEntity({
  name: 'RiskProfile',
  tableName: 'risk_profiles',
  properties: {
    id: p.string().primary(),
    tenantId: p.string().index(),
    name: p.string(),
    maxOrderNotionalUsd: numeric().nullable(),
    maxPositionNotionalUsd: numeric().nullable(),
    createdAt: createdAt(),
  },
});

/**
 * A challenge template of a firm (docs/api.md §3.5): price and account size in USD; profit target, max
 * daily loss and max drawdown as fractions of the account size (`0.08` = 8 %); the payout split
 * as the trader's fraction of profit.
 */
export const PropTemplate = defineEntity({
  name: 'PropTemplate',
  tableName: 'prop_templates',
  properties: {
    id: p.string().primary(),
    tenantId: p.string().index(),
    firmId: p.string(),
    name: p.string(),
    priceUsd: numeric(),
    accountSizeUsd: numeric(),
    profitTargetPct: numeric(),
    maxDailyLossPct: numeric(),
    maxDrawdownPct: numeric(),
    minTradingDays: p.integer(),
    payoutSplitPct: numeric(),
    venue: p.string().default('paper'),
    tradingGroupId: p.string().nullable(),
    riskProfileId: p.string().nullable(),
    archived: p.boolean().default(false),
    createdAt: createdAt(),
  },
});

/**
 * One challenge of one trader (docs/api.md §3.5) with its own trading account. `status`:
 * `pending_payment` → `active` → `passed` | `breached` (terminal); `passed` → `funded`;
 * `suspended` by the operator. Equity figures in USD.
 */
export const PropAccount = defineEntity({
  name: 'PropAccount',
  tableName: 'prop_accounts',
  properties: {
    id: p.string().primary(),
    tenantId: p.string().index(),
    firmId: p.string(),
    templateId: p.string(),
    accountId: p.string().unique(),
    ownerId: p.string(),
    status: p.string(),
    payerAddress: p.string().nullable(),
    depositTxHash: p.string().nullable(),
    startingBalanceUsd: numeric(),
    peakEquityUsd: numeric(),
    dayStartEquityUsd: numeric(),
    day: p.string().columnType('date').nullable(),
    tradingDays: p.integer().default(0),
    breachReason: p.text().nullable(),
    payoutCeilingUsd: numeric().nullable(),
    paidOutUsd: numeric().default('0'),
    attempt: p.integer().default(1),
    /** Start of the current attempt (creation, or the last reset): trading days count from it. */
    attemptStartedAt: p.datetime().onCreate(() => new Date()),
    passedAt: p.datetime().nullable(),
    breachedAt: p.datetime().nullable(),
    createdAt: createdAt(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

/**
 * A payout request and its multisig authorisation: `requested` → `authorized` → `executed` | `rejected`, or
 * `canceled` by the operator; back to `requested` when the Safe moves past `safeNonce` and the transaction is
 * rebuilt (`safeTxHash`, `safeNonce`: the current build, decimal string).
 */
export const Payout = defineEntity({
  name: 'Payout',
  tableName: 'payouts',
  properties: {
    id: p.string().primary(),
    tenantId: p.string().index(),
    firmId: p.string(),
    propAccountId: p.string(),
    amountUsd: numeric(),
    toAddress: p.string(),
    status: p.string(),
    safeTxHash: p.string().nullable(),
    safeNonce: p.string().nullable(),
    signatures: p.text().nullable(),
    signers: p.json<string[]>().nullable(),
    rejectReason: p.text().nullable(),
    cancelReason: p.text().nullable(),
    authorizedAt: p.datetime().nullable(),
    executedTxHash: p.string().nullable(),
    executedAt: p.datetime().nullable(),
    canceledAt: p.datetime().nullable(),
    createdAt: createdAt(),
  },
});

/**
 * A trader's deposit, withdrawal or transfer on its internalised accounts (docs/api.md §4.3 "Funding operations";
 * migration FundingOperations documents each column): `pending` → `completed` | `rejected`, or `completed` at once.
 */
export const FundingOperation = defineEntity({
  name: 'FundingOperation',
  tableName: 'funding_operations',
  properties: {
    id: p.string().primary(),
    tenantId: p.string().index(),
    accountId: p.string(),
    toAccountId: p.string().nullable(),
    /** `deposit` | `withdrawal` | `transfer` (domain/funding/operations.ts). */
    type: p.string(),
    amountUsd: numeric(),
    /** `pending` | `completed` | `rejected`. */
    status: p.string(),
    requestedBy: p.string(),
    decidedBy: p.string().nullable(),
    rejectReason: p.text().nullable(),
    createdAt: createdAt(),
    decidedAt: p.datetime().nullable(),
  },
});

/** One money movement of a firm, USD: `pay_in`, `collateral`, `payout`, `forfeit`; `ref` unique. */
export const PropLedgerEntry = defineEntity({
  name: 'PropLedgerEntry',
  tableName: 'prop_ledger',
  properties: {
    id: p.string().primary(),
    tenantId: p.string().index(),
    firmId: p.string(),
    propAccountId: p.string().nullable(),
    kind: p.string(),
    amountUsd: numeric(),
    txHash: p.string().nullable(),
    ref: p.string().unique(),
    createdAt: createdAt(),
  },
});

/** An operator's webhook receiver (docs/api.md §6.4; migration Webhooks documents each column). Secrets are sealed. */
export const WebhookEndpoint = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  properties: {
    id: p.string().primary(),
    tenantId: p.string().index(),
    url: p.text(),
    events: p.json<string[]>(),
    sealedSecret: p.text().hidden(),
    sealedApiKey: p.text().nullable().hidden(),
    status: p.string().default('enabled'),
    disabledReason: p.text().nullable(),
    disabledAt: p.datetime().nullable(),
    /** The dispatcher's cursor: the last event dispatched, by its transaction id and event id (worker/webhook-dispatcher.ts). */
    lastXactId: p.bigint('string').default('0'),
    lastEventId: p.bigint('string').default('0'),
    secretRotatedAt: p.datetime().nullable(),
    createdAt: createdAt(),
  },
});

/** One delivery of one account event to one endpoint: `pending` → `delivered` | `failed`. */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    endpointId: p.string().primary(),
    eventId: p.string().primary(),
    tenantId: p.string().index(),
    status: p.string(),
    attempts: p.integer().default(0),
    lastStatus: p.integer().nullable(),
    lastError: p.text().nullable(),
    deliveredAt: p.datetime().nullable(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
    createdAt: createdAt(),
  },
});

/**
 * A tenant's sign-in provider for the branded page (docs/api.md §5.1; migration SocialSignIn documents each column):
 * an OpenID provider (`kind` `oidc`; the client secret sealed with the custody key ring) or the email magic link
 * (`kind` `email`), with the policy of a first sign-in (`joinPolicy`, `emailDomains`).
 */
export const SigninProvider = defineEntity({
  name: 'SigninProvider',
  tableName: 'signin_providers',
  properties: {
    id: p.string().primary(),
    tenantId: p.string().index(),
    slug: p.string(),
    kind: p.string(),
    displayName: p.string(),
    issuer: p.text().nullable(),
    clientId: p.text().nullable(),
    sealedClientSecret: p.text().nullable().hidden(),
    scopes: p.json<string[]>(),
    joinPolicy: p.string(),
    emailDomains: p.json<string[]>(),
    enabled: p.boolean().default(true),
    createdAt: createdAt(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

/**
 * An identity a trader (`ownerId`) signs in with (docs/api.md §5.1; migration SocialSignIn): an OpenID subject
 * (`issuer` + `subject`), an email (`issuer` `email`) or a wallet (`issuer` `siwe`). Unique per tenant.
 */
export const TraderIdentity = defineEntity({
  name: 'TraderIdentity',
  tableName: 'trader_identities',
  properties: {
    id: p.string().primary(),
    tenantId: p.string().index(),
    ownerId: p.string(),
    kind: p.string(),
    providerId: p.string().nullable(),
    issuer: p.text(),
    subject: p.text(),
    email: p.text().nullable(),
    createdAt: createdAt(),
    lastSignInAt: p.datetime().nullable(),
  },
});

/** Entities whose rows belong to one tenant: covered by the default `tenant` filter. */
export const TENANT_OWNED = [
  TradingGroup,
  Account,
  AccountBalance,
  Credential,
  HandshakeToken,
  OrderIntent,
  Fill,
  Position,
  Trade,
  AccountEvent,
  AccountStateSnapshot,
  AgentWallet,
  Firm,
  RiskProfile,
  PropTemplate,
  PropAccount,
  Payout,
  PropLedgerEntry,
  FundingOperation,
  WebhookEndpoint,
  WebhookDelivery,
  SigninProvider,
  TraderIdentity,
];

/** Every entity, for the ORM config. */
export const ENTITIES = [Tenant, RevokedToken, IdempotencyRecord, Mark, ...TENANT_OWNED];

/** Row types of the entities, for code that handles rows. */
export type TenantRow = InferEntity<typeof Tenant>;
export type AccountRow = InferEntity<typeof Account>;
export type CredentialRow = InferEntity<typeof Credential>;
export type OrderIntentRow = InferEntity<typeof OrderIntent>;
export type PositionRow = InferEntity<typeof Position>;
export type AccountBalanceRow = InferEntity<typeof AccountBalance>;
export type AgentWalletRow = InferEntity<typeof AgentWallet>;
export type FirmRow = InferEntity<typeof Firm>;
export type PropTemplateRow = InferEntity<typeof PropTemplate>;
export type PropAccountRow = InferEntity<typeof PropAccount>;
export type PayoutRow = InferEntity<typeof Payout>;
export type WebhookEndpointRow = InferEntity<typeof WebhookEndpoint>;
export type FundingOperationRow = InferEntity<typeof FundingOperation>;
export type SigninProviderRow = InferEntity<typeof SigninProvider>;
export type TraderIdentityRow = InferEntity<typeof TraderIdentity>;
