/**
 * Process configuration from the environment, validated once with zod. Shared by api, worker
 * and scripts; no product code (api, worker, activities) reads `process.env` elsewhere. Scripts
 * keep a few variables of their own (dev: VENUE_MODE, ANVIL_PORT, TEMPORAL_CLI; bench: BENCH_*;
 * tests: TEMPORAL_SERVER_BIN). The README's configuration table lists them all; `--print-config`
 * on the api or worker prints the effective values with secrets redacted ({@link printConfig}),
 * and NODE_ENV=production refuses the development defaults ({@link loadConfig}).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { projectRoot } from './project-root.js';
import { HISTORY_BOUND } from './workflows/shared.definitions.js';

/** An optional variable where an empty value (`VAR=`, common in deploy templates) means unset. */
const optionalText = z.preprocess((v) => (v === '' ? undefined : v), z.string().optional());

const schema = z.object({
  /** `production` refuses the development defaults listed in {@link NOT_FOR_PRODUCTION} (README "Configuration checks"). */
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  DATABASE_URL: z.string().url(),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('oms'),
  /** TLS to the Temporal frontend: `on`/`off`; unset = `on` when any TEMPORAL_TLS_* file, TEMPORAL_TLS_SERVER_NAME or TEMPORAL_API_KEY is set. */
  TEMPORAL_TLS: z.enum(['on', 'off']).optional(),
  /** mTLS client certificate and its private key (PEM file paths); set both or neither. */
  TEMPORAL_TLS_CERT: optionalText,
  TEMPORAL_TLS_KEY: optionalText,
  /** CA bundle (PEM file path) the frontend's certificate is checked against; unset = the system's roots. */
  TEMPORAL_TLS_CA: optionalText,
  /** Server name (SNI and certificate check) when it differs from TEMPORAL_ADDRESS's host. */
  TEMPORAL_TLS_SERVER_NAME: optionalText,
  /** Temporal Cloud API key, sent as `Authorization: Bearer`; turns TLS on. */
  TEMPORAL_API_KEY: optionalText,
  /** HS256 key for bearer JWTs; at least 32 characters. */
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** The worker's ops server (worker/ops-server.ts: /healthz, /readyz, /metrics): port (0 = any free port; default 9464, the Prometheus exporter port of OpenTelemetry) and host. */
  WORKER_HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  WORKER_HTTP_HOST: z.string().default('127.0.0.1'),
  /** Public base URL printed and used to build `riskEngineWss.endpoint`. Defaults to http://HOST:PORT. */
  PUBLIC_BASE_URL: z.string().url().optional(),
  /**
   * `on`: the api sits behind a reverse proxy it trusts, so `X-Forwarded-For`, `-Proto` and `-Host` are honoured
   * (Koa `app.proxy`: client IP, `Secure` cookies behind TLS termination). `off` (default): they are ignored. SIWE never
   * reads the request's host either way (docs/api.md §4.1: the message must name a registered origin or PUBLIC_BASE_URL).
   */
  TRUST_PROXY: z.enum(['on', 'off']).default('off'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `replay`: the worker replays the recorded Hyperliquid marks; `off`: marks come from elsewhere. */
  MARK_FEED: z.enum(['replay', 'off']).default('replay'),
  /**
   * Marks of the routed venues with a live feed (with `MARK_FEED=replay`; docs/architecture.md "Market data"). `replay`
   * (default): they replay the recorded data like paper. `live`: the Hyperliquid symbols (`*.HL`) follow the venue's
   * public WebSocket (`HYPERLIQUID_API_URL` + `/ws`, modules/market/feeds/venue-feed-hyperliquid.ts), the Aster ones
   * (`*.ASTER`) its market streams (`wss://fstream.asterdex.com/ws` for `ASTER_API_URL`'s venue, else that host's `/ws`;
   * modules/market/feeds/venue-feed-aster.ts) and the Polymarket ones (`*.PM`) its CLOB market channel
   * (`wss://ws-subscriptions-clob.polymarket.com/ws/market` for `POLYMARKET_API_URL`'s venue, else that host's
   * `/ws/market`; modules/market/feeds/venue-feed-polymarket.ts) and, when KALSHI_FEED_KEY_ID and
   * KALSHI_FEED_PRIVATE_KEY are set, the Kalshi ones (`*.KX`) its signed WebSocket API (`wss://external-api-ws.kalshi.com/trade-api/ws/v2`
   * for `KALSHI_API_URL`'s venue, else that host's `/trade-api/ws/v2`; modules/market/feeds/venue-feed-kalshi.ts);
   * under `npm run dev` with `VENUE_MODE=sim` the simulators', which then price from their own data (docs/venues.md
   * §1.8, §2.4, §3.5, §4.4). Paper keeps the replay, and so does Kalshi without its read key (the worker warns once).
   */
  VENUE_FEEDS: z.enum(['replay', 'live']).default('replay'),
  /** `on`: the worker streams depth and tape for demanded pairs (docs/api.md §4.6 cold cache, `/ws/market`). */
  MARKET_STREAMS: z.enum(['on', 'off']).default('on'),
  /** FX rates per USD for non-USD accounts: `EUR=0.9412@2026-11-20T16:00:00Z,GBP=0.7901@...` (rate, then the time it was taken). */
  FX_RATES: z
    .string()
    .regex(
      /^([A-Z]{3,5}=\d+(\.\d+)?@[0-9T:.Z-]+)(,[A-Z]{3,5}=\d+(\.\d+)?@[0-9T:.Z-]+)*$/,
      'FX_RATES is CUR=rate@ISO-time[,...]',
    )
    .optional(),
  /** A mark older than this is not traded against (ms). */
  MARK_MAX_AGE_MS: z.coerce.number().int().positive().default(60_000),
  /** Directory holding the recorded `hyperliquid_ticks/` (relative to the current directory); unset or empty = `<repo>/data/recorded`. */
  MARKET_DATA_DIR: optionalText,
  /** Agent-key encryption ring `<version>:<base64 32 bytes>[,...]`; the first encrypts. Without it routed venues answer `503 custody_unconfigured`. */
  AGENT_KEY_ENCRYPTION_KEYS: z.string().optional(),
  /** Routed venue REST base URLs (default: each venue's production host). */
  HYPERLIQUID_API_URL: z.string().url().default('https://api.hyperliquid.xyz'),
  ASTER_API_URL: z.string().url().default('https://fapi.asterdex.com'),
  POLYMARKET_API_URL: z.string().url().default('https://clob.polymarket.com'),
  KALSHI_API_URL: z.string().url().default('https://external-api.kalshi.com/trade-api/v2'),
  /**
   * The platform's own Kalshi API key for market data (docs/venues.md §4.4): Kalshi signs even its WebSocket's
   * handshake, so `VENUE_FEEDS=live` follows the `*.KX` books only with a key. The key id (a UUID from kalshi.com →
   * Account & security → API keys; read scope is enough) and its RSA private key as PEM text (`-----BEGIN PRIVATE
   * KEY-----…`; `\n` escapes are read as newlines). Set both or neither; unset: Kalshi keeps the replay.
   */
  KALSHI_FEED_KEY_ID: optionalText,
  KALSHI_FEED_PRIVATE_KEY: optionalText.refine(
    (v) => v === undefined || v.includes('-----BEGIN '),
    'KALSHI_FEED_PRIVATE_KEY is PEM text (-----BEGIN PRIVATE KEY----- …)',
  ),
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
  /**
   * How long an api process keeps a tenant, a credential row and the revoked token list it read before
   * reading them again (ms; api/auth/auth-cache.ts). Changes reach every process at once by NOTIFY; this
   * is only the upper bound. 0 = read PostgreSQL on every request.
   */
  AUTH_CACHE_MS: z.coerce.number().int().min(0).default(60_000),
  /**
   * How long an api process keeps the rows of an account's state (account, balances, open positions) it read
   * (ms; db/account-state-cache.ts). Every write to them drops the account at once by NOTIFY; this is only
   * the upper bound. 0 = read PostgreSQL on every `GET /accounts/{id}/state`.
   */
  STATE_CACHE_MS: z.coerce.number().int().min(0).default(60_000),
  /**
   * Request rate limit per credential (a cookie session: per trader) on `/api/*`, counted in PostgreSQL so it holds
   * across api processes (docs/api.md §8 "Rate limits"): requests per one-second window. A credential's own
   * `rate_limit_per_second` overrides it.
   */
  RATE_LIMIT_PER_SECOND: z.coerce.number().int().positive().default(50),
  /** Burst allowance per credential: requests beyond RATE_LIMIT_PER_SECOND, refilled every 10 s; `rate_limit_burst` overrides it. */
  RATE_LIMIT_BURST: z.coerce.number().int().min(0).default(200),
  /** The same two for requests without a credential (no bearer, no session), counted per client IP. */
  RATE_LIMIT_IP_PER_SECOND: z.coerce.number().int().positive().default(50),
  RATE_LIMIT_IP_BURST: z.coerce.number().int().min(0).default(200),
  /** Failed secret checks (`POST /api/auth/api-token`, bootstrap with a key) allowed per API key and per client IP per minute; then `429` before any scrypt. */
  RATE_LIMIT_SECRET_FAILURES_PER_MINUTE: z.coerce.number().int().positive().default(10),
  /** Webhook retries: first wait, doubling up to the longest wait, after which the endpoint is disabled (ms). */
  WEBHOOK_INITIAL_BACKOFF_MS: z.coerce.number().int().positive().default(1_000),
  WEBHOOK_MAX_BACKOFF_MS: z.coerce.number().int().positive().default(86_400_000),
  /** A receiver slower than this is a failed attempt (ms). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** The dispatcher's polling interval besides LISTEN account_events (ms). */
  WEBHOOK_DISPATCH_MS: z.coerce.number().int().positive().default(1_000),
  /**
   * `true`: webhook endpoints may target loopback, private, link-local, multicast, unspecified and
   * reserved addresses (domain/webhooks/target.ts), at registration and at delivery; `false` (the
   * default): those are refused. `npm run dev` and the test stacks set `true` (their receivers are
   * local); refused with NODE_ENV=production.
   */
  WEBHOOK_ALLOW_PRIVATE: z.enum(['true', 'false']).default('false'),
  /**
   * `true`: OpenID providers of the tenants' social sign-in (docs/api.md §5.1) may be reached over plain http
   * (openid-client `allowInsecureRequests`): the local provider of `npm run dev` and of the tests. `false` (the
   * default): https only. Refused with NODE_ENV=production.
   */
  OIDC_ALLOW_INSECURE: z.enum(['true', 'false']).default('false'),
  /** Tests only (worker/fault-injection.ts): `<before|after>:<activity>:<n>` kills the worker around the n-th run of that activity. */
  FAULT_CRASH: optionalText.refine(
    (v) => v === undefined || /^(before|after):\w+:\d+$/.test(v),
    'FAULT_CRASH is <before|after>:<activityName>:<n>',
  ),
  /** The dev mailbox: without SMTP_URL, outbox mail is written here as readable files. */
  MAIL_DIR: z.string().default('.data/mail'),
  /** SMTP server for outbox mail (`smtp://user:pass@host:587`, `smtps://…:465`); unset: the dev mailbox. */
  SMTP_URL: z
    .string()
    .url()
    .refine((u) => /^smtps?:\/\//.test(u), 'an smtp:// or smtps:// URL')
    .optional(),
  /** The From of outbox mail. */
  MAIL_FROM: z.string().default('Platform <no-reply@platform.localhost>'),
  /** How often each worker retries outbox mail whose send failed (ms). */
  MAIL_RETRY_MS: z.coerce.number().int().positive().default(30_000),
  /** The built trading page (`npm run build:web`), served on every tenant host; relative to the project root. */
  WEB_DIST: z.string().default('web/dist'),
  /** `on`: a verified signup also gets an operator credential with `firm:operate` and `prop:manage` (docs/api.md §4.1 "where enabled"). */
  SIGNUP_OPERATOR_CREDENTIAL: z.enum(['on', 'off']).default('on'),
  /** OTLP/HTTP collector base URL (`http://collector:4318`); spans go to `<url>/v1/traces`. Unset: tracing is off (no SDK started, no interceptors). README "Traces". */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /** The `service.name` resource attribute of exported spans; default `platform-api` / `platform-worker` by process. */
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  /** api shutdown (README "Graceful shutdown"): how long in-flight HTTP requests may take after SIGTERM/SIGINT before every connection is cut (ms). */
  API_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  /** worker shutdown (README "Graceful shutdown"): how long running activities may take after SIGTERM/SIGINT before they are cancelled (ms; Temporal `shutdownGraceTime`). */
  WORKER_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(30_000),
  /**
   * Events a run of a long-lived workflow (a working order, a firm's deployment, a challenge, a payout, a chase, an
   * hourly funding run) may reach before it continues as new with its state (docs/architecture.md "History bound");
   * read by the worker. Temporal's own suggestion (4,096 events or 4 MB on its defaults) may come first.
   */
  WORKFLOW_HISTORY_BOUND: z.coerce
    .number()
    .int()
    .min(HISTORY_BOUND.min)
    .max(HISTORY_BOUND.max)
    .default(HISTORY_BOUND.default),
  /**
   * A prebuilt workflow bundle file (`bundleWorkflowCode`'s code, e.g. `dist/workflows-bundle.js` of `npm run build`) the
   * worker runs instead of bundling the sources at start; unset = the compiled worker's prebuilt bundle, else the sources.
   * Many workers started from the sources (`npm run chaos`) bundle once instead of once each.
   */
  WORKFLOW_BUNDLE_PATH: z.string().min(1).optional(),
  /**
   * How long one call of the worker into its workflow sandbox may run before it is stopped and the workflow task fails
   * (ms; Temporal `isolateExecutionTimeout`); 0 = no limit, the default (issue 15, patches/README.md: the limit starts a
   * watchdog thread for every call, ~0.3 ms each, and an order's workflow makes dozens of calls).
   */
  WORKFLOW_ISOLATE_TIMEOUT_MS: z.coerce.number().int().min(0).max(4_294_967_295).default(0),
  /**
   * The workflow task timeout of every workflow the api and the worker start (ms; Temporal `workflowTaskTimeout`):
   * how long the server waits for a worker's answer to a workflow task before it gives the task to another worker, so
   * how long an order whose worker died mid-task (a compose waiting on it) waits before it goes on elsewhere. Unset:
   * Temporal's default, 10 s. 1,000 to 60,000 (Temporal's own maximum is 120 s).
   */
  WORKFLOW_TASK_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(60_000).optional(),
});

type Env = z.infer<typeof schema>;

/** The variables after defaults, with the defaults that depend on others resolved (`--print-config` shows these). */
type EffectiveEnv = Omit<Env, 'TEMPORAL_TLS'> & {
  TEMPORAL_TLS: 'on' | 'off';
};

const TEMPORAL_KEYS = {
  TEMPORAL_ADDRESS: true,
  TEMPORAL_NAMESPACE: true,
  TEMPORAL_TASK_QUEUE: true,
  TEMPORAL_TLS: true,
  TEMPORAL_TLS_CERT: true,
  TEMPORAL_TLS_KEY: true,
  TEMPORAL_TLS_CA: true,
  TEMPORAL_TLS_SERVER_NAME: true,
  TEMPORAL_API_KEY: true,
} as const;
type TemporalEnv = Pick<Env, keyof typeof TEMPORAL_KEYS>;
const temporalSchema = schema.pick(TEMPORAL_KEYS);

/** The Temporal frontend the api, the worker and the scripts connect to (README "Connecting to a Temporal cluster"; temporal-connection.ts builds the SDK options). */
export interface TemporalConfig {
  /** `host:port` of the frontend. */
  address: string;
  namespace: string;
  /** Task queue of the platform's workflows. */
  taskQueue: string;
  /** TLS to the frontend (absolute PEM file paths), or null for plaintext. */
  tls: {
    clientCert: { certFile: string; keyFile: string } | null;
    caFile: string | null;
    serverName: string | null;
  } | null;
  /** Temporal Cloud API key (`Authorization: Bearer`), or null. */
  apiKey: string | null;
}

/** Variables that turn TLS on when set (unless TEMPORAL_TLS says otherwise). */
const TLS_SETTINGS = ['TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY', 'TEMPORAL_TLS_CA', 'TEMPORAL_TLS_SERVER_NAME'] as const;

/**
 * Temporal connection settings refused at start, each with the variable it names. Allowed on
 * purpose: TEMPORAL_TLS_CA or TEMPORAL_TLS_SERVER_NAME alone (server-authenticated TLS), and an
 * API key together with a client certificate (Temporal Cloud namespaces may accept both).
 */
const TEMPORAL_REFUSALS: { variable: keyof TemporalEnv; refused: (t: TemporalEnv) => boolean; message: string }[] = [
  {
    variable: 'TEMPORAL_TLS_KEY',
    refused: (t) => !!t.TEMPORAL_TLS_CERT && !t.TEMPORAL_TLS_KEY,
    message: 'unset while TEMPORAL_TLS_CERT is set: a client certificate needs its private key (set both or neither)',
  },
  {
    variable: 'TEMPORAL_TLS_CERT',
    refused: (t) => !t.TEMPORAL_TLS_CERT && !!t.TEMPORAL_TLS_KEY,
    message: 'unset while TEMPORAL_TLS_KEY is set: a private key needs its client certificate (set both or neither)',
  },
  {
    variable: 'TEMPORAL_TLS',
    refused: (t) => t.TEMPORAL_TLS === 'off' && TLS_SETTINGS.some((k) => t[k]),
    message: `off, but ${TLS_SETTINGS.join('/')} would then be ignored: unset TEMPORAL_TLS or those`,
  },
  {
    variable: 'TEMPORAL_TLS',
    refused: (t) => t.TEMPORAL_TLS === 'off' && !!t.TEMPORAL_API_KEY,
    message: 'off, but TEMPORAL_API_KEY is set: the key is a bearer credential and is only sent over TLS',
  },
];

/** The PEM file variables, checked for being readable PEM at start. */
const PEM_FILES = ['TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY', 'TEMPORAL_TLS_CA'] as const;

/** Why a PEM file variable is unusable (`VAR: cannot read <file> (ENOENT)`), or null. */
function pemIssue(variable: string, file: string): string | null {
  const abs = path.resolve(file);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (err) {
    return `${variable}: cannot read ${abs} (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
  return text.includes('-----BEGIN ') ? null : `${variable}: ${abs} holds no PEM block (-----BEGIN ...)`;
}

function temporalIssues(t: TemporalEnv): string[] {
  const issues = TEMPORAL_REFUSALS.filter((r) => r.refused(t)).map((r) => `${r.variable}: ${r.message}`);
  for (const v of PEM_FILES) {
    const file = t[v];
    const issue = file ? pemIssue(v, file) : null;
    if (issue) issues.push(issue);
  }
  return issues;
}

function tlsOn(t: TemporalEnv): 'on' | 'off' {
  return t.TEMPORAL_TLS ?? (TLS_SETTINGS.some((k) => t[k]) || t.TEMPORAL_API_KEY ? 'on' : 'off');
}

function temporalOf(t: TemporalEnv): TemporalConfig {
  const file = (f: string | undefined) => (f ? path.resolve(f) : null);
  return {
    address: t.TEMPORAL_ADDRESS,
    namespace: t.TEMPORAL_NAMESPACE,
    taskQueue: t.TEMPORAL_TASK_QUEUE,
    tls:
      tlsOn(t) === 'on'
        ? {
            clientCert:
              t.TEMPORAL_TLS_CERT && t.TEMPORAL_TLS_KEY
                ? { certFile: path.resolve(t.TEMPORAL_TLS_CERT), keyFile: path.resolve(t.TEMPORAL_TLS_KEY) }
                : null,
            caFile: file(t.TEMPORAL_TLS_CA),
            serverName: t.TEMPORAL_TLS_SERVER_NAME ?? null,
          }
        : null,
    apiKey: t.TEMPORAL_API_KEY ?? null,
  };
}

/** The prefix `npm run dev` puts on the JWT secret it generates (scripts/dev.ts), so production can tell it apart. */
export const DEV_SECRET_PREFIX = 'dev:';

/** Agent-key ring versions of development rings: `dev1` (`npm run dev`), `test1` (the test stacks). */
const DEV_RING_VERSION = /^(dev|test)\d*$/;

/** The versions of an agent-key ring spec `<version>:<key>[,...]`. */
const ringVersions = (spec: string | undefined) =>
  (spec ?? '')
    .split(',')
    .map((entry) => entry.trim().split(':')[0])
    .filter(Boolean);

/** Development defaults and test hooks that NODE_ENV=production refuses (README "Configuration checks"). */
const NOT_FOR_PRODUCTION: { variable: keyof Env; refused: (e: EffectiveEnv) => boolean; message: string }[] = [
  {
    variable: 'JWT_SECRET',
    refused: (e) => e.JWT_SECRET.startsWith(DEV_SECRET_PREFIX),
    message: `is the secret \`npm run dev\` generated (prefix \`${DEV_SECRET_PREFIX}\`): set a random one of at least 32 characters, e.g. \`openssl rand -base64 48\``,
  },
  {
    variable: 'AGENT_KEY_ENCRYPTION_KEYS',
    refused: (e) => ringVersions(e.AGENT_KEY_ENCRYPTION_KEYS).some((v) => DEV_RING_VERSION.test(v)),
    message:
      'holds a development key version (`dev1` of `npm run dev`, `test1` of the tests): use a ring of your own, e.g. `prod1:$(openssl rand -base64 32)`',
  },
  {
    variable: 'WEBHOOK_ALLOW_PRIVATE',
    refused: (e) => e.WEBHOOK_ALLOW_PRIVATE === 'true',
    message:
      "is true: webhook endpoints could target the platform's own host and private networks (127.0.0.0/8, 10.0.0.0/8, 169.254.169.254, ::1, …); unset it or set false",
  },
  {
    variable: 'OIDC_ALLOW_INSECURE',
    refused: (e) => e.OIDC_ALLOW_INSECURE === 'true',
    message: 'is true: OpenID sign-in would fetch discovery, keys and tokens over plain http; unset it or set false',
  },
  {
    variable: 'FAULT_CRASH',
    refused: (e) => e.FAULT_CRASH !== undefined,
    message: 'is set: it kills the worker on purpose (durability tests only); unset it',
  },
];

/**
 * Parses the environment, resolves the defaults that depend on other variables, and checks the
 * Temporal TLS settings and (NODE_ENV=production) the development defaults.
 * @throws Error `invalid configuration:` with one `  VAR: message` line per problem.
 */
function effectiveEnv(env: NodeJS.ProcessEnv): EffectiveEnv {
  const parsed = schema.safeParse(env);
  if (!parsed.success) throw invalid(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  const e: EffectiveEnv = {
    ...parsed.data,
    TEMPORAL_TLS: tlsOn(parsed.data),
  };
  const issues = temporalIssues(parsed.data);
  if (e.NODE_ENV === 'production') {
    for (const r of NOT_FOR_PRODUCTION)
      if (r.refused(e)) issues.push(`${r.variable}: ${r.message} (refused with NODE_ENV=production)`);
  }
  if (!e.KALSHI_FEED_KEY_ID !== !e.KALSHI_FEED_PRIVATE_KEY)
    issues.push(
      `${e.KALSHI_FEED_KEY_ID ? 'KALSHI_FEED_PRIVATE_KEY' : 'KALSHI_FEED_KEY_ID'}: unset while ${e.KALSHI_FEED_KEY_ID ? 'KALSHI_FEED_KEY_ID' : 'KALSHI_FEED_PRIVATE_KEY'} is set: Kalshi's feed key needs both (set both or neither)`,
    );
  if (issues.length) throw invalid(issues);
  return e;
}

const invalid = (lines: string[]) => new Error(`invalid configuration:\n${lines.map((l) => `  ${l}`).join('\n')}`);

/**
 * The market data directory alone, for code that runs without the full configuration
 * (modules/market/feeds/recorded.ts `marketDataDir()`): `MARKET_DATA_DIR` resolved against the
 * current directory, or `<repo>/data/recorded` when unset or empty. Absolute.
 */
export function loadMarketDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = schema.shape.MARKET_DATA_DIR.parse(env.MARKET_DATA_DIR);
  return dir ? path.resolve(dir) : path.join(projectRoot(), 'data/recorded');
}

/**
 * `VENUE_FEEDS` alone (`replay` or `live`, see the schema), for the simulators of `npm run dev`: with `live` the
 * Hyperliquid, Aster, Polymarket and Kalshi simulators price from their own data rather than from the marks the live feeds publish.
 * @throws ZodError when the variable holds another value.
 */
export function loadVenueFeeds(env: NodeJS.ProcessEnv = process.env): 'replay' | 'live' {
  return schema.shape.VENUE_FEEDS.parse(env.VENUE_FEEDS);
}

/**
 * The Temporal settings alone (TEMPORAL_* variables), for scripts that need no database or JWT
 * secret (scripts/inspect.ts).
 * @throws Error `invalid configuration:` as {@link loadConfig} does for these variables.
 */
export function loadTemporalConfig(env: NodeJS.ProcessEnv = process.env): TemporalConfig {
  const parsed = temporalSchema.safeParse(env);
  if (!parsed.success) throw invalid(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  const issues = temporalIssues(parsed.data);
  if (issues.length) throw invalid(issues);
  return temporalOf(parsed.data);
}

/**
 * How `--print-config` shows secret variables: `value` → `"<redacted>"`; `url` → the URL with its
 * password replaced by `<redacted>`; `ring` → each `<version>:<redacted>` (the versions stay
 * visible). Unset secrets print as null. TEMPORAL_TLS_KEY is a file path and prints as one: the key
 * itself is never part of the configuration.
 */
const SECRETS: Partial<Record<keyof Env, 'value' | 'url' | 'ring'>> = {
  JWT_SECRET: 'value',
  PROP_DEPLOYER_KEY: 'value',
  TEMPORAL_API_KEY: 'value',
  KALSHI_FEED_PRIVATE_KEY: 'value',
  AGENT_KEY_ENCRYPTION_KEYS: 'ring',
  DATABASE_URL: 'url',
  SMTP_URL: 'url',
  CHAIN_RPC_URL: 'url',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'url',
};

const REDACTED = '<redacted>';
const REDACT: Record<'value' | 'url' | 'ring', (v: string) => string> = {
  value: () => REDACTED,
  url: (v) => {
    const u = new URL(v);
    if (!u.password) return v;
    u.password = 'REDACTED-PASSWORD';
    return u.toString().replace('REDACTED-PASSWORD', REDACTED);
  },
  ring: (v) =>
    ringVersions(v)
      .map((version) => `${version}:${REDACTED}`)
      .join(','),
};

/**
 * The effective configuration as `--print-config` prints it: every variable of the schema in
 * schema order, after defaults (null when unset), secrets redacted as {@link SECRETS} says.
 * @throws Error `invalid configuration:` as {@link loadConfig} does.
 */
export function redactedConfig(env: NodeJS.ProcessEnv = process.env): Record<string, string | number | null> {
  const e = effectiveEnv(env) as Record<string, unknown>;
  const out: Record<string, string | number | null> = {};
  for (const key of Object.keys(schema.shape) as (keyof Env)[]) {
    const value = e[key] as string | number | undefined;
    const kind = SECRETS[key];
    out[key] = value === undefined ? null : kind && typeof value === 'string' ? REDACT[kind](value) : value;
  }
  return out;
}

/**
 * `node … api/server.ts --print-config` and `… worker/main.ts --print-config` (README
 * "Configuration checks"): prints {@link redactedConfig} as JSON to stdout and exits 0, or prints
 * the validation errors to stderr and exits 1. Never returns.
 */
export function printConfig(env: NodeJS.ProcessEnv = process.env): never {
  let shown: Record<string, string | number | null>;
  try {
    shown = redactedConfig(env);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
  process.exit(0);
}

/** The validated configuration. */
export interface Config {
  databaseUrl: string;
  /** `NODE_ENV`. */
  nodeEnv: 'development' | 'production' | 'test';
  temporal: TemporalConfig;
  jwtSecret: string;
  host: string;
  port: number;
  /** Listen address of the worker's ops server (README "Health and readiness"); port 0 = any free port. */
  workerHttp: { host: string; port: number };
  publicBaseUrl: string | undefined;
  /** `TRUST_PROXY=on`: honour `X-Forwarded-*` from the reverse proxy in front (Koa `app.proxy`). */
  trustProxy: boolean;
  logLevel: z.infer<typeof schema>['LOG_LEVEL'];
  markFeed: 'replay' | 'off';
  /** `VENUE_FEEDS`: `live` = the routed venues' symbols' marks come from the venues' WebSockets (Kalshi's only with `venues.feedKeys.kalshi`), `replay` = from the recording. */
  venueFeeds: 'replay' | 'live';
  marketStreams: 'on' | 'off';
  /** Configured FX rates (units of `currency` per USD, decimal strings) and when they were taken. */
  fxRates: { currency: string; rate: string; asOf: string }[];
  markMaxAgeMs: number;
  /** Agent-key encryption ring spec (domain/custody/vault.ts), or undefined when custody is off. */
  agentKeyEncryptionKeys: string | undefined;
  /** Routed venues: base URL per venue slug, signing network, resting-order poll interval (ms). */
  venues: {
    urls: Record<'hyperliquid' | 'aster' | 'polymarket' | 'kalshi', string>;
    /** Platform-level market-data keys: Kalshi's read key (`KALSHI_FEED_KEY_ID`, `KALSHI_FEED_PRIVATE_KEY` PEM), or null when unset. */
    feedKeys: { kalshi: { keyId: string; privateKeyPem: string } | null };
    network: 'mainnet' | 'testnet';
    pollMs: number;
  };
  /** The prop firms' chain: RPC URL, platform deployer key, deploy confirmations, poll interval (ms). */
  chain: { rpcUrl: string | null; deployerKey: `0x${string}` | null; confirmations: number; pollMs: number };
  /** Authentication cache lifetime (ms; 0 = off). */
  authCacheMs: number;
  /** Account state cache lifetime (ms; 0 = off). */
  stateCacheMs: number;
  /**
   * Request rate limits (api/middleware/rate-limit.ts): per credential and per client IP (requests per second and
   * the burst allowance refilled every 10 s), and failed secret checks per API key and per IP per minute.
   */
  rateLimits: {
    perSecond: number;
    burst: number;
    ipPerSecond: number;
    ipBurst: number;
    secretFailuresPerMinute: number;
  };
  /** Webhook delivery timing and the dispatcher's interval (ms); `allowPrivate`: `WEBHOOK_ALLOW_PRIVATE` (non-public targets allowed). */
  webhooks: {
    initialBackoffMs: number;
    maxBackoffMs: number;
    timeoutMs: number;
    dispatchMs: number;
    allowPrivate: boolean;
  };
  /** Social sign-in (docs/api.md §5.1): `allowInsecure` is `OIDC_ALLOW_INSECURE` (OpenID providers over http). */
  oidc: { allowInsecure: boolean };
  /** Worker crash hook of the durability tests (`FAULT_CRASH`), or null. */
  faultCrash: string | null;
  /** Signup: the dev mailbox directory and whether verification issues an operator credential. */
  signup: { operatorCredential: boolean };
  /** Outbox mail: SMTP when `smtpUrl` is set, else the dev mailbox `mailDir`; retried every `retryMs`. */
  mail: { smtpUrl: string | null; from: string; mailDir: string; retryMs: number };
  /** Directory of the built trading page (absolute). */
  webDist: string;
  /** Tracing (README "Traces"): the OTLP/HTTP collector base URL (null: tracing off) and the `service.name` override. */
  otel: { endpoint: string | null; serviceName: string | null };
  /** Graceful shutdown (README "Graceful shutdown"): the api's grace for in-flight requests, the worker's for running activities (ms). */
  shutdown: { apiGraceMs: number; workerGraceMs: number };
  /** `WORKFLOW_HISTORY_BOUND`: events a long-lived workflow's run may reach before it continues as new (docs/architecture.md "History bound"). */
  historyBound: number;
  /** `WORKFLOW_BUNDLE_PATH`: the prebuilt workflow bundle the worker runs, or null (module doc of worker/worker.ts). */
  workflowBundlePath: string | null;
  /** `WORKFLOW_ISOLATE_TIMEOUT_MS`: the limit of one call into the workflow sandbox (ms; 0: none; worker/isolate-timeout.ts). */
  workflowIsolateTimeoutMs: number;
  /** `WORKFLOW_TASK_TIMEOUT_MS`: the workflow task timeout of the workflows the platform starts (ms), or null: Temporal's 10 s. */
  workflowTaskTimeoutMs: number | null;
}

/**
 * Reads and validates the configuration (README "Configuration", "Configuration checks").
 * @throws Error `invalid configuration:` listing every missing or malformed variable, every bad
 *   Temporal TLS combination or unreadable PEM file, and with NODE_ENV=production every development
 *   default it refuses (one line each, naming the variable).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const e = effectiveEnv(env);
  return {
    databaseUrl: e.DATABASE_URL,
    nodeEnv: e.NODE_ENV,
    temporal: temporalOf(e),
    jwtSecret: e.JWT_SECRET,
    host: e.HOST,
    port: e.PORT,
    workerHttp: { host: e.WORKER_HTTP_HOST, port: e.WORKER_HTTP_PORT },
    publicBaseUrl: e.PUBLIC_BASE_URL,
    trustProxy: e.TRUST_PROXY === 'on',
    logLevel: e.LOG_LEVEL,
    markFeed: e.MARK_FEED,
    venueFeeds: e.VENUE_FEEDS,
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
      urls: {
        hyperliquid: e.HYPERLIQUID_API_URL,
        aster: e.ASTER_API_URL,
        polymarket: e.POLYMARKET_API_URL,
        kalshi: e.KALSHI_API_URL,
      },
      feedKeys: {
        kalshi:
          e.KALSHI_FEED_KEY_ID && e.KALSHI_FEED_PRIVATE_KEY
            ? { keyId: e.KALSHI_FEED_KEY_ID, privateKeyPem: e.KALSHI_FEED_PRIVATE_KEY.replace(/\\n/g, '\n') }
            : null,
      },
      network: e.VENUE_NETWORK,
      pollMs: e.ROUTED_POLL_MS,
    },
    chain: {
      rpcUrl: e.CHAIN_RPC_URL ?? null,
      deployerKey: (e.PROP_DEPLOYER_KEY as `0x${string}` | undefined) ?? null,
      confirmations: e.CHAIN_CONFIRMATIONS,
      pollMs: e.CHAIN_POLL_MS,
    },
    authCacheMs: e.AUTH_CACHE_MS,
    stateCacheMs: e.STATE_CACHE_MS,
    rateLimits: {
      perSecond: e.RATE_LIMIT_PER_SECOND,
      burst: e.RATE_LIMIT_BURST,
      ipPerSecond: e.RATE_LIMIT_IP_PER_SECOND,
      ipBurst: e.RATE_LIMIT_IP_BURST,
      secretFailuresPerMinute: e.RATE_LIMIT_SECRET_FAILURES_PER_MINUTE,
    },
    webDist: path.resolve(projectRoot(), e.WEB_DIST),
    signup: { operatorCredential: e.SIGNUP_OPERATOR_CREDENTIAL === 'on' },
    otel: { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT ?? null, serviceName: e.OTEL_SERVICE_NAME ?? null },
    mail: { smtpUrl: e.SMTP_URL ?? null, from: e.MAIL_FROM, mailDir: e.MAIL_DIR, retryMs: e.MAIL_RETRY_MS },
    webhooks: {
      initialBackoffMs: e.WEBHOOK_INITIAL_BACKOFF_MS,
      maxBackoffMs: e.WEBHOOK_MAX_BACKOFF_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      dispatchMs: e.WEBHOOK_DISPATCH_MS,
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE === 'true',
    },
    oidc: { allowInsecure: e.OIDC_ALLOW_INSECURE === 'true' },
    faultCrash: e.FAULT_CRASH ?? null,
    shutdown: { apiGraceMs: e.API_SHUTDOWN_GRACE_MS, workerGraceMs: e.WORKER_SHUTDOWN_GRACE_MS },
    historyBound: e.WORKFLOW_HISTORY_BOUND,
    workflowBundlePath: e.WORKFLOW_BUNDLE_PATH ?? null,
    workflowIsolateTimeoutMs: e.WORKFLOW_ISOLATE_TIMEOUT_MS,
    workflowTaskTimeoutMs: e.WORKFLOW_TASK_TIMEOUT_MS ?? null,
  };
}
