/**
 * Process configuration from the environment, validated once with zod. Shared by api, worker
 * and scripts; nothing else reads `process.env`. The README's configuration table lists these.
 */
import path from 'node:path';
import { z } from 'zod';

/** The project root (this file's directory). */
const PROJECT_ROOT = import.meta.dirname;

const schema = z.object({
  DATABASE_URL: z.string().url(),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('oms'),
  /** HS256 key for bearer JWTs; at least 32 characters. */
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Public base URL printed and used to build `riskEngineWss.endpoint`. Defaults to http://HOST:PORT. */
  PUBLIC_BASE_URL: z.string().url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `replay`: the worker replays the recorded Hyperliquid marks; `off`: marks come from elsewhere. */
  MARK_FEED: z.enum(['replay', 'off']).default('replay'),
  /** `on`: the worker streams depth and tape for demanded pairs (docs/api.md §4.6 cold cache, `/ws/market`). */
  MARKET_STREAMS: z.enum(['on', 'off']).default('on'),
  /** FX rates per USD for non-USD accounts: `EUR=0.9412@2026-11-20T16:00:00Z,GBP=0.7901@...` (rate, then the time it was taken). */
  FX_RATES: z
    .string()
    .regex(/^([A-Z]{3,5}=\d+(\.\d+)?@[0-9T:.Z-]+)(,[A-Z]{3,5}=\d+(\.\d+)?@[0-9T:.Z-]+)*$/, 'FX_RATES is CUR=rate@ISO-time[,...]')
    .optional(),
  /** A mark older than this is not traded against (ms). */
  MARK_MAX_AGE_MS: z.coerce.number().int().positive().default(60_000),
  /** Agent-key encryption ring `<version>:<base64 32 bytes>[,...]`; the first encrypts. Without it routed venues answer `503 custody_unconfigured`. */
  AGENT_KEY_ENCRYPTION_KEYS: z.string().optional(),
  /** Routed venue REST base URLs (default: each venue's production host). */
  HYPERLIQUID_API_URL: z.string().url().default('https://api.hyperliquid.xyz'),
  ASTER_API_URL: z.string().url().default('https://fapi.asterdex.com'),
  POLYMARKET_API_URL: z.string().url().default('https://clob.polymarket.com'),
  KALSHI_API_URL: z.string().url().default('https://external-api.kalshi.com/trade-api/v2'),
  /** `mainnet` or `testnet` signing domains (Hyperliquid source, Aster and Polymarket chain ids). */
  VENUE_NETWORK: z.enum(['mainnet', 'testnet']).default('mainnet'),
  /** How often a routed working order is read back from its venue while it rests (ms). */
  ROUTED_POLL_MS: z.coerce.number().int().positive().default(1_000),
  /** EVM JSON-RPC URL of the prop firms' chain. Unset: firm deploys and chain reads are refused (`chain_unconfigured`); `npm run dev` and the tests start anvil. */
  CHAIN_RPC_URL: z.string().url().optional(),
  /** The gas-only platform deployer's private key (0x + 64 hex). Unset: live firm deploys answer `503 deployer_unconfigured`. */
  PROP_DEPLOYER_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'PROP_DEPLOYER_KEY is 0x + 64 hex')
    .optional(),
  /** Blocks a firm deploy waits for on top of its own block. */
  CHAIN_CONFIRMATIONS: z.coerce.number().int().min(1).default(1),
  /** How often the prop workflows read the chain and evaluate challenge rules (ms). */
  CHAIN_POLL_MS: z.coerce.number().int().positive().default(5_000),
  /** How long an operator's scopes are cached by the api before the credential is read again (ms; docs/api.md §5.2 "cached briefly"). */
  SCOPE_CACHE_MS: z.coerce.number().int().min(0).default(30_000),
  /** Webhook retries: first wait, doubling up to the longest wait, after which the endpoint is disabled (ms). */
  WEBHOOK_INITIAL_BACKOFF_MS: z.coerce.number().int().positive().default(1_000),
  WEBHOOK_MAX_BACKOFF_MS: z.coerce.number().int().positive().default(86_400_000),
  /** A receiver slower than this is a failed attempt (ms). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** The dispatcher's polling interval besides LISTEN account_events (ms). */
  WEBHOOK_DISPATCH_MS: z.coerce.number().int().positive().default(1_000),
  /** The dev mailbox: without SMTP_URL, outbox mail is written here as readable files. */
  MAIL_DIR: z.string().default('.data/mail'),
  /** SMTP server for outbox mail (`smtp://user:pass@host:587`, `smtps://…:465`); unset: the dev mailbox. */
  SMTP_URL: z.string().url().refine((u) => /^smtps?:\/\//.test(u), 'an smtp:// or smtps:// URL').optional(),
  /** The From of outbox mail. */
  MAIL_FROM: z.string().default('Platform <no-reply@platform.localhost>'),
  /** How often each worker retries outbox mail whose send failed (ms). */
  MAIL_RETRY_MS: z.coerce.number().int().positive().default(30_000),
  /** The built trading page (`npm run build:web`), served on every tenant host; relative to the project root. */
  WEB_DIST: z.string().default('web/dist'),
  /** `on`: a verified signup also gets an operator credential with `firm:operate` and `prop:manage` (docs/api.md §4.1 "where enabled"). */
  SIGNUP_OPERATOR_CREDENTIAL: z.enum(['on', 'off']).default('on'),
});

/** The validated configuration. */
export interface Config {
  databaseUrl: string;
  temporal: { address: string; namespace: string; taskQueue: string };
  jwtSecret: string;
  host: string;
  port: number;
  publicBaseUrl: string | undefined;
  logLevel: z.infer<typeof schema>['LOG_LEVEL'];
  markFeed: 'replay' | 'off';
  marketStreams: 'on' | 'off';
  /** Configured FX rates (units of `currency` per USD, decimal strings) and when they were taken. */
  fxRates: { currency: string; rate: string; asOf: string }[];
  markMaxAgeMs: number;
  /** Agent-key encryption ring spec (activities/custody/vault.ts), or undefined when custody is off. */
  agentKeyEncryptionKeys: string | undefined;
  /** Routed venues: base URL per venue slug, signing network, resting-order poll interval (ms). */
  venues: { urls: Record<'hyperliquid' | 'aster' | 'polymarket' | 'kalshi', string>; network: 'mainnet' | 'testnet'; pollMs: number };
  /** The prop firms' chain: RPC URL, platform deployer key, deploy confirmations, poll interval (ms). */
  chain: { rpcUrl: string | null; deployerKey: `0x${string}` | null; confirmations: number; pollMs: number };
  /** Operator scope cache lifetime (ms). */
  scopeCacheMs: number;
  /** Webhook delivery timing and the dispatcher's interval (ms). */
  webhooks: { initialBackoffMs: number; maxBackoffMs: number; timeoutMs: number; dispatchMs: number };
  /** Signup: the dev mailbox directory and whether verification issues an operator credential. */
  signup: { operatorCredential: boolean };
  /** Outbox mail: SMTP when `smtpUrl` is set, else the dev mailbox `mailDir`; retried every `retryMs`. */
  mail: { smtpUrl: string | null; from: string; mailDir: string; retryMs: number };
  /** Directory of the built trading page (absolute). */
  webDist: string;
}

/**
 * Reads and validates the configuration.
 * @throws Error listing every missing or malformed variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    databaseUrl: e.DATABASE_URL,
    temporal: { address: e.TEMPORAL_ADDRESS, namespace: e.TEMPORAL_NAMESPACE, taskQueue: e.TEMPORAL_TASK_QUEUE },
    jwtSecret: e.JWT_SECRET,
    host: e.HOST,
    port: e.PORT,
    publicBaseUrl: e.PUBLIC_BASE_URL,
    logLevel: e.LOG_LEVEL,
    markFeed: e.MARK_FEED,
    marketStreams: e.MARKET_STREAMS,
    fxRates: (e.FX_RATES ?? '')
      .split(',')
      .filter(Boolean)
      .map((entry) => {
        const [currency, rest] = entry.split('=');
        const [rate, asOf] = rest.split('@');
        return { currency, rate, asOf: new Date(asOf).toISOString() };
      }),
    markMaxAgeMs: e.MARK_MAX_AGE_MS,
    agentKeyEncryptionKeys: e.AGENT_KEY_ENCRYPTION_KEYS,
    venues: {
      urls: { hyperliquid: e.HYPERLIQUID_API_URL, aster: e.ASTER_API_URL, polymarket: e.POLYMARKET_API_URL, kalshi: e.KALSHI_API_URL },
      network: e.VENUE_NETWORK,
      pollMs: e.ROUTED_POLL_MS,
    },
    chain: { rpcUrl: e.CHAIN_RPC_URL ?? null, deployerKey: (e.PROP_DEPLOYER_KEY as `0x${string}` | undefined) ?? null, confirmations: e.CHAIN_CONFIRMATIONS, pollMs: e.CHAIN_POLL_MS },
    scopeCacheMs: e.SCOPE_CACHE_MS,
    webDist: path.resolve(PROJECT_ROOT, e.WEB_DIST),
    signup: { operatorCredential: e.SIGNUP_OPERATOR_CREDENTIAL === 'on' },
    mail: { smtpUrl: e.SMTP_URL ?? null, from: e.MAIL_FROM, mailDir: e.MAIL_DIR, retryMs: e.MAIL_RETRY_MS },
    webhooks: { initialBackoffMs: e.WEBHOOK_INITIAL_BACKOFF_MS, maxBackoffMs: e.WEBHOOK_MAX_BACKOFF_MS, timeoutMs: e.WEBHOOK_TIMEOUT_MS, dispatchMs: e.WEBHOOK_DISPATCH_MS },
  };
}
