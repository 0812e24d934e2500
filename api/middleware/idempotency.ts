/**
 * `Idempotency-Key` on `/oms/*` writes (docs/api.md §8): 8-200 characters (`400 invalid_idempotency_key`),
 * kept 24 h per credential. The same key and payload replays the stored response with
 * `Idempotency-Replay: true`; a different payload is `409 idempotency_key_conflict`; concurrent
 * identical requests wait for the first one's answer, so they produce one intent.
 * Stored in PostgreSQL, so every api process agrees. A 5xx answer is not stored (retry is safe).
 *
 * A key never stays stuck: the body was screened by validate() first (depth ≤ 32, no NUL or unpaired
 * surrogate, 256 KB), the stored answer has any unstorable character replaced by U+FFFD, an answer that
 * still cannot be stored releases the key (a retry runs again), a release that fails (PostgreSQL
 * restarting) is tried again in the background for about a minute, and a key whose first request died
 * with its process (`in_progress` for {@link STALE_CLAIM_MS}) is taken over by the next request.
 */
import { createHash } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors.js';
import { platformEm } from '../../db/orm.js';
import type { ApiMiddleware } from '../context.js';
import { callerOf } from './auth.js';
import { MAX_BODY_DEPTH, storable } from './validate.js';

/** Replay window: 24 hours (ms). */
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const WAIT_STEP_MS = 25;
const WAIT_LIMIT_MS = 30_000;
/** An `in_progress` claim this old belongs to a request that died with its process: 5 minutes (ms). */
const STALE_CLAIM_MS = 5 * 60 * 1000;

/** Background attempts to release a key whose first release failed: 0.5 s apart, doubling, for about a minute. */
const RELEASE_RETRIES = 7;

/** Calls `drop` until it succeeds, {@link RELEASE_RETRIES} times at most; `gaveUp` gets the last error. */
async function releaseLater(drop: () => Promise<unknown>, gaveUp: (err: unknown) => void): Promise<void> {
  for (let attempt = 1, waitMs = 500; ; attempt++, waitMs *= 2) {
    await new Promise((r) => setTimeout(r, waitMs));
    try {
      await drop();
      return;
    } catch (err) {
      if (attempt >= RELEASE_RETRIES) return gaveUp(err);
    }
  }
}

/**
 * Stable JSON (sorted keys) so that key order does not change the payload hash.
 * @throws ApiError `400 body_too_deep` past {@link MAX_BODY_DEPTH} (validate() refuses such a body first).
 */
function canonical(v: unknown, depth = 0): string {
  if (v && typeof v === 'object' && depth >= MAX_BODY_DEPTH)
    throw new ApiError('body_too_deep', `objects and arrays may nest at most ${MAX_BODY_DEPTH} deep`);
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x, depth + 1)).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k], depth + 1)}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

interface Stored {
  request_hash: string;
  status: string;
  response_status: number | null;
  response_body: unknown;
  expires_at: Date;
  stale: boolean;
}

/**
 * The `Idempotency-Key` middleware of a write route (module doc); runs after validate().
 * @throws ApiError `400 invalid_idempotency_key`, `409 idempotency_key_conflict`, `409 idempotency_request_in_flight`.
 */
export function idempotency(orm: MikroORM): ApiMiddleware {
  return async (ctx, next) => {
    const key = ctx.get('idempotency-key');
    if (!key) {
      await next();
      return;
    }
    if (key.length < 8 || key.length > 200)
      throw new ApiError('invalid_idempotency_key', 'Idempotency-Key must be 8 to 200 characters');
    const credentialId = callerOf(ctx).credentialId;
    const hash = createHash('sha256')
      .update(`${ctx.method} ${ctx.path} ${canonical(ctx.request.body ?? null)}`)
      .digest('hex');
    const conn = platformEm(orm).getConnection();

    const claim = async () =>
      (
        await conn.execute<{ key: string }[]>(
          `insert into idempotency_records (credential_id, key, request_hash, status, expires_at, created_at)
           values (?, ?, ?, 'in_progress', now() + (? * interval '1 millisecond'), now())
           on conflict (credential_id, key) do update set request_hash = excluded.request_hash, status = 'in_progress',
             response_status = null, response_body = null, expires_at = excluded.expires_at, created_at = now()
             where idempotency_records.expires_at < now()
                or (idempotency_records.status = 'in_progress' and idempotency_records.created_at < now() - (? * interval '1 millisecond'))
           returning key`,
          [credentialId, key, hash, IDEMPOTENCY_TTL_MS, STALE_CLAIM_MS],
        )
      ).length > 0;

    if (!(await claim())) {
      const started = Date.now();
      for (;;) {
        const [row] = await conn.execute<Stored[]>(
          `select request_hash, status, response_status, response_body, expires_at,
                  status = 'in_progress' and created_at < now() - (? * interval '1 millisecond') as stale
             from idempotency_records where credential_id = ? and key = ?`,
          [STALE_CLAIM_MS, credentialId, key],
        );
        if (!row || row.stale) {
          if (await claim()) break;
          continue;
        }
        if (row.request_hash !== hash)
          throw new ApiError('idempotency_key_conflict', 'this Idempotency-Key was used with a different payload');
        if (row.status === 'done') {
          ctx.status = row.response_status ?? 200;
          ctx.body = row.response_body;
          ctx.set('Idempotency-Replay', 'true');
          return;
        }
        if (Date.now() - started > WAIT_LIMIT_MS)
          throw new ApiError(
            'idempotency_request_in_flight',
            'the first request with this key is still running; retry later',
          );
        await new Promise((r) => setTimeout(r, WAIT_STEP_MS));
      }
    }

    const release = async () => {
      const drop = () =>
        conn.execute('delete from idempotency_records where credential_id = ? and key = ?', [credentialId, key]);
      try {
        await drop();
      } catch (err) {
        // PostgreSQL unreachable (a restart: `npm run chaos` found retries refused 409 for the whole stale-claim
        // window). Tried again in the background, so the key is free soon after PostgreSQL is back.
        ctx.state.log.warn({ err }, 'idempotency: could not release a key; retrying in the background');
        void releaseLater(drop, (e) =>
          ctx.state.log.error({ err: e }, 'idempotency: could not release a key (free after the stale-claim window)'),
        );
      }
    };
    /** Stores the answer for replay; an answer that cannot be stored releases the key instead. */
    const store = async (status: number, body: unknown) => {
      try {
        const json = JSON.stringify(body ?? null, (_k, v: unknown) => (typeof v === 'string' ? storable(v) : v));
        await conn.execute(
          `update idempotency_records set status = 'done', response_status = ?, response_body = ?::jsonb where credential_id = ? and key = ?`,
          [status, json, credentialId, key],
        );
      } catch (err) {
        ctx.state.log.warn({ err }, 'idempotency: could not store the answer; the key is released');
        await release();
      }
    };
    try {
      await next();
    } catch (err) {
      if (err instanceof ApiError && err.status < 500) {
        await store(err.status, {
          error: err.code,
          ...(err.detail === undefined ? {} : { detail: err.detail }),
          ...err.extra,
        });
      } else await release();
      throw err;
    }
    if (ctx.status >= 500) await release();
    else await store(ctx.status, ctx.body);
  };
}
