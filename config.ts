/**
 * Process configuration from the environment, validated once with zod. Shared by api, worker
 * and scripts; nothing else reads `process.env`. The README's configuration table lists these.
 */
import { z } from 'zod';

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
  /** A mark older than this is not traded against (ms). */
  MARK_MAX_AGE_MS: z.coerce.number().int().positive().default(60_000),
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
  markMaxAgeMs: number;
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
    markMaxAgeMs: e.MARK_MAX_AGE_MS,
  };
}
