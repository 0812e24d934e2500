/**
 * `/ws/risk` (docs/api.md §6.2, §6.3): `Authenticate` with a single-use handshake token, `Subscribe` to
 * topics, then frames from the account event log with their per-account `seq`. A browser whose
 * upgrade request carries a valid `service_session` cookie (docs/api.md §5.1) is authenticated at connect
 * (`Authenticated` arrives unasked; an `Authenticate` frame after that is answered `Authenticated`
 * again) and torn down (`session_ended`, close 4401) once the session ends. A socket authenticated by a
 * handshake token is torn down (`credential_revoked`, close 4401) as soon as its credential is revoked
 * (the hub relays NOTIFY `credential_revoked`); a token whose credential was revoked in the meantime is refused so.
 * Rules: nothing is pushed before `Subscribe`; `Ping` → `Pong { serverTime }`; `Alive` →
 * `Result { ok: true }`; 60 s of inbound silence closes the socket; a per-frame rate limit exempts
 * `Ping` and `Alive`. Event frames go through a bounded send queue (api/ws/outbox.ts, unnumbered: they
 * keep the account log's `seq`): written while the socket's buffer is under 64 KiB; past
 * {@link OUTBOX_CAP_BYTES} queued the backlog is dropped and replaced by
 * `Resync-Required { reason: 'slow_consumer', dropped, accountIds }` (the accounts whose frames were dropped:
 * re-read their REST snapshots). Control frames (`Result`, `Pong`, `Authenticated`) go ahead of the queue.
 *
 * Topics: `Order-Intent-Changed` (`Order-Intent-Update`, `Open-Orders-Update`),
 * `Position-Changed` (`Position-Changed`), `Fills` (`Fill`), `Funding` (`Funding-Update`: deposits,
 * withdrawals, transfers, funding operations held or rejected, funding payments).
 * Frame: `{ type, topic, seq, accountId, event, occurredAt, data }`; `data` is the intent, working
 * orders, position or fill exactly as REST shows it.
 */
import type { WebSocket } from 'ws';
import type { IncomingMessage } from 'node:http';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { ApiError } from '../../domain/errors.js';
import { Account } from '../../db/entities.js';
import { platformEm, scoped } from '../../db/orm.js';
import { consumeHandshakeToken } from './handshake.js';
import { callerFromSession } from '../auth/session.js';
import { clientFrames, readFrame } from './client-frames.js';
import { FrameLimiter } from './frame-limit.js';
import { tenantLookup, tenantOf } from '../middleware/tenant.js';
import type { EventHub, LoggedEvent } from './hub.js';
import { Outbox, OUTBOX_CAP_BYTES, type FrameMeter } from './outbox.js';

/** Topics a `/ws/risk` client may subscribe to. */
export const RISK_TOPICS = ['Order-Intent-Changed', 'Position-Changed', 'Fills', 'Funding'] as const;
/** Idle close after this much inbound silence (docs/api.md §8). */
export const IDLE_CLOSE_MS = 60_000;
/**
 * How often an authenticated socket re-reads its credential or cookie session; a revoked or ended one is torn
 * down (docs/api.md §5.7), ms. A credential's revocation closes it at once (NOTIFY `credential_revoked` through
 * the hub); this re-check backs that up should a notification be lost.
 */
export const REVOCATION_CHECK_MS = 5_000;

const frame = clientFrames();

export interface RiskSocketDeps {
  orm: MikroORM;
  hub: EventHub;
  logger: Logger;
  idleCloseMs?: number;
  revocationCheckMs?: number;
  /** Queued-bytes cap per socket before `Resync-Required`, bytes (default {@link OUTBOX_CAP_BYTES}, 1 MiB). */
  outboxCapBytes?: number;
  /** Counts the socket's frames (api/ops/metrics.ts). */
  meter?: FrameMeter;
}

/** Serves one `/ws/risk` connection. `sessionToken`: the upgrade request's `service_session` cookie, if any. */
export async function serveRiskSocket(
  ws: WebSocket,
  req: IncomingMessage,
  deps: RiskSocketDeps,
  sessionToken?: string,
): Promise<void> {
  const out = new Outbox(ws, deps.outboxCapBytes ?? OUTBOX_CAP_BYTES, deps.meter, {
    numbered: false,
    resyncFields: (accountIds) => ({ accountIds }),
  });
  const send = (msg: Record<string, unknown>) => out.reply(msg);
  const fail = (error: string, detail?: string) =>
    send({ type: 'Result', ok: false, error, ...(detail ? { detail } : {}) });

  // Listen at once (frames may arrive before the tenant is resolved); handle them in order after.
  const inbox: string[] = [];
  // eslint-disable-next-line prefer-const -- the message listener reads it (undefined) before it is assigned below; a const would be in its TDZ there
  let handle: ((raw: string) => void) | undefined;
  ws.on('message', (raw) => (handle ? handle(String(raw)) : inbox.push(String(raw))));

  let tenantId: string;
  try {
    tenantId = (await tenantOf(tenantLookup(deps.orm), (h) => String(req.headers[h] ?? ''))).id;
  } catch (err) {
    fail(err instanceof ApiError ? err.code : 'internal_error');
    ws.close(1008, 'tenant');
    return;
  }

  let idle = setTimeout(() => ws.close(1000, 'idle'), deps.idleCloseMs ?? IDLE_CLOSE_MS);
  const limiter = new FrameLimiter();
  let session: { accountIds: string[]; unsubscribe?: () => void; topics: Set<string>; cookie: boolean } | undefined;
  let revocationTimer: NodeJS.Timeout | undefined;
  let stopRevoked: (() => void) | undefined;
  /** Tears the socket down: access ended (docs/api.md §5.7). */
  const end = (error: string) => {
    fail(error, 'access ended; the socket closes');
    ws.close(4401, error);
  };
  /** Re-checks the credential or cookie session; when it is gone the socket is torn down (docs/api.md §5.7). */
  const watch = (stillValid: () => Promise<boolean>, error: string) => {
    clearInterval(revocationTimer);
    revocationTimer = setInterval(() => {
      stillValid()
        .then((valid) => {
          if (!valid) end(error);
        })
        .catch((err: unknown) => deps.logger.error({ err }, 'revocation check failed'));
    }, deps.revocationCheckMs ?? REVOCATION_CHECK_MS);
  };
  /** A credential's owner and revocation; undefined when there is no such row (a cookie session's `wallet:` id). */
  const credentialRow = async (credentialId: string) =>
    (
      await platformEm(deps.orm)
        .getConnection()
        .execute<{ owner_id: string; revoked_at: Date | null }[]>(
          'select owner_id, revoked_at from credentials where id = ?',
          [credentialId],
        )
    )[0];
  const credentialActive = async (credentialId: string) => {
    const row = await credentialRow(credentialId);
    return Boolean(row && !row.revoked_at);
  };

  const deliver = (e: LoggedEvent) => {
    if (!session?.topics.has(e.topic)) return;
    out.push(
      {
        type: e.frameType,
        topic: e.topic,
        seq: e.seq,
        accountId: e.accountId,
        event: e.kind,
        occurredAt: e.occurredAt,
        data: e.data,
      },
      undefined,
      e.accountId,
    );
  };

  /** Opens the session over every account of `ownerId` and says `Authenticated`. */
  async function open(ownerId: string, accountId: string | null, cookie: boolean) {
    const accounts = await scoped(deps.orm, tenantId).find(Account, { ownerId });
    session = { accountIds: accounts.map((a) => a.id), topics: new Set(), cookie };
    send({ type: 'Authenticated', tenantId, accountId, accountIds: session.accountIds });
  }

  async function authenticate(token: string | undefined) {
    if (session?.cookie) return void send({ type: 'Authenticated', tenantId, accountIds: session.accountIds });
    if (!token) return fail('token_required');
    const consumed = await consumeHandshakeToken(deps.orm, token, tenantId);
    if (!consumed) return fail('token_invalid');
    // Told at once of a revocation from now on; one that came before (a token bootstrapped just ahead of it) is read.
    stopRevoked?.();
    stopRevoked = deps.hub.onRevoked(consumed.credentialId, () => end('credential_revoked'));
    const cred = await credentialRow(consumed.credentialId);
    if (cred?.revoked_at) return end('credential_revoked');
    watch(() => credentialActive(consumed.credentialId), 'credential_revoked');
    await open(cred?.owner_id ?? '', consumed.accountId, false);
  }

  function subscribe(topics: string[]) {
    if (!session) return fail('not_authenticated', 'send Authenticate first');
    if (!topics.length) return fail('topics_required', 'topics must be non-empty');
    const unknown = topics.filter((t) => !(RISK_TOPICS as readonly string[]).includes(t));
    if (unknown.length)
      return fail('unknown_topic', `unknown topics: ${unknown.join(', ')}; known: ${RISK_TOPICS.join(', ')}`);
    topics.forEach((t) => session!.topics.add(t));
    session.unsubscribe ??= deps.hub.subscribe(tenantId, session.accountIds, deliver);
    send({ type: 'Result', ok: true, topics: [...session.topics] });
  }

  handle = (raw: string) => {
    clearTimeout(idle);
    idle = setTimeout(() => ws.close(1000, 'idle'), deps.idleCloseMs ?? IDLE_CLOSE_MS);
    const read = readFrame(frame, raw, 'expected Authenticate, Subscribe, Ping or Alive');
    if ('error' in read) return fail(read.error, read.detail);
    const parsed = read.frame;
    if (parsed.type === 'Ping') return send({ type: 'Pong', serverTime: new Date().toISOString() });
    if (parsed.type === 'Alive') return send({ type: 'Result', ok: true });
    if (!limiter.take()) return fail('rate_limited', limiter.detail);
    if (parsed.type === 'Authenticate')
      return void authenticate(parsed.token).catch(
        (err) => (deps.logger.error({ err }, 'ws authenticate failed'), fail('internal_error')),
      );
    subscribe(parsed.topics);
  };
  if (sessionToken) {
    const caller = await callerFromSession(deps.orm, sessionToken, tenantId).catch(() => null);
    if (caller) {
      watch(async () => (await callerFromSession(deps.orm, sessionToken, tenantId)) !== null, 'session_ended');
      await open(caller.ownerId, caller.accountId, true);
    }
  }
  inbox.splice(0).forEach(handle);
  ws.on('close', () => {
    clearTimeout(idle);
    clearInterval(revocationTimer);
    stopRevoked?.();
    session?.unsubscribe?.();
  });
}
