/**
 * Fan-out of the account event log to sockets (docs/architecture.md): each api process LISTENs on
 * `account_events`, whose payload is the appended row itself (migration EventNotice; its id when the
 * row is too long for a payload, then read here), and hands it to every subscriber of its tenant and
 * account, in log order. Works with any number of api processes because the log, not memory, is the source.
 * The same connection LISTENs on `credential_revoked` (trigger of migration PropFirm, payload: the
 * credential id) and tells the sockets of that credential at once (docs/api.md §5.2).
 *
 * The LISTEN connection reconnects by itself (db/notices.ts). While it is down, deliveries wait; once it
 * LISTENs again, the events the subscribed accounts got meanwhile are read from the log and delivered
 * first (past the last `seq` delivered, or the log's last when the account was subscribed), then what
 * the notifications bring, skipping what the catch-up delivered already: a socket open across a
 * PostgreSQL restart misses nothing and sees each event once, in `seq` order.
 */
import { newPool } from '../../db/pool.js';
import type { Logger } from 'pino';
import { startNotices } from '../../db/notices.js';

/** One row of the event log as sockets see it. */
export interface LoggedEvent {
  tenantId: string;
  accountId: string;
  seq: number;
  topic: string;
  frameType: string;
  kind: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

/** A row of `select … from account_events` as pg returns it (timestamptz → Date, jsonb → object). */
interface EventRow {
  tenant_id: string;
  account_id: string;
  seq: number;
  topic: string;
  frame_type: string;
  kind: string;
  created_at: Date;
  data: Record<string, unknown>;
}

/** Receives the events of the accounts it subscribed to, in `seq` order per account. */
export type Subscriber = (e: LoggedEvent) => void;

/** The hub of one api process. */
export interface EventHub {
  /** Registers a listener for events of these accounts in this tenant; returns the unsubscribe. */
  subscribe(tenantId: string, accountIds: string[], fn: Subscriber): () => void;
  /** Calls `fn` once `credentialId` is revoked (NOTIFY `credential_revoked`, any process); returns the unsubscribe. */
  onRevoked(credentialId: string, fn: () => void): () => void;
  /** Waits for the deliveries under way, then closes its connections. */
  stop(): Promise<void>;
}

/** The `application_name` of the hub's LISTEN connection (pg_stat_activity). */
export const EVENT_HUB_APPLICATION = 'platform-event-hub';
/** A subscribed account with no known `seq` catches up on the events logged this long before the loss, ms. */
const CATCH_UP_MARGIN_MS = 60_000;

/** An account with subscribers here. */
interface Followed {
  tenantId: string;
  accountId: string;
  fns: Set<Subscriber>;
  /** The highest `seq` delivered here. */
  seq?: number;
  /** The log's highest `seq` when the account got its first subscriber (read then). */
  base?: number;
}

/**
 * Starts the hub. `arrived` is told of each event's account just before the event reaches any socket
 * (the account state cache drops the account there: db/account-state-cache.ts). Resolves once it
 * LISTENs (or once a first connection attempt failed: it keeps reconnecting with backoff); never rejects.
 */
export async function startEventHub(
  databaseUrl: string,
  logger: Logger,
  arrived: (accountId: string) => void = () => undefined,
): Promise<EventHub> {
  const reader = newPool({ connectionString: databaseUrl, max: 4 }, (err) =>
    logger.error({ err }, 'event hub pool error'),
  );
  const followed = new Map<string, Followed>();
  const revocations = new Map<string, Set<() => void>>();
  const keyOf = (tenantId: string, accountId: string) => `${tenantId}/${accountId}`;
  /** Deliveries keep log order even though rows are loaded asynchronously. */
  let chain = Promise.resolve();
  /**
   * While the connection is down: the deliveries chained since wait for `open` (called once the
   * catch-up is done); `before` is the chain up to the loss, `lostAt` its time (ms).
   */
  let gate: { open(): void; before: Promise<void>; lostAt: number } | undefined;
  /** Bumped by every loss: a catch-up that straddles one leaves the gate shut. */
  let losses = 0;
  let stopped = false;

  const toEvent = (r: EventRow): LoggedEvent => ({
    tenantId: r.tenant_id,
    accountId: r.account_id,
    seq: r.seq,
    topic: r.topic,
    frameType: r.frame_type,
    kind: r.kind,
    occurredAt: new Date(r.created_at).toISOString(),
    data: r.data,
  });
  /** Hands one logged row to its account's subscribers, unless they had it already (a catch-up's overlap). */
  const deliver = (r: EventRow) => {
    const event = toEvent(r);
    const f = followed.get(keyOf(event.tenantId, event.accountId));
    if (f) {
      if (f.seq !== undefined && event.seq <= f.seq) return;
      f.seq = event.seq;
    }
    arrived(event.accountId);
    for (const fn of f?.fns ?? []) fn(event);
  };

  /** Delivers what the subscribed accounts logged past what was delivered here (the connection was down). */
  const catchUp = async (lostAt: number) => {
    const accounts = [...followed.values()];
    if (!accounts.length) return;
    const since = new Date(lostAt - CATCH_UP_MARGIN_MS).toISOString();
    const { rows } = await reader.query<EventRow>(
      `select e.tenant_id, e.account_id, e.seq, e.topic, e.frame_type, e.kind, e.created_at, e.data
         from unnest($1::text[], $2::text[], $3::int[], $4::timestamptz[]) as k(tenant_id, account_id, after, since)
         join account_events e on e.account_id = k.account_id and e.tenant_id = k.tenant_id
        where e.seq > k.after and (k.since is null or e.created_at >= k.since)
        order by e.id`,
      [
        accounts.map((f) => f.tenantId),
        accounts.map((f) => f.accountId),
        accounts.map((f) => f.seq ?? f.base ?? 0),
        accounts.map((f) => ((f.seq ?? f.base) === undefined ? since : null)),
      ],
    );
    for (const r of rows) deliver(r);
    if (rows.length)
      logger.info({ events: rows.length }, 'event hub caught up on events logged while it was not listening');
  };

  const onEvent = (payload: string) => {
    if (!payload) return;
    // The row itself (migration EventNotice), or its id when it was too long for a payload: then read it.
    const carried = payload.startsWith('{');
    const id = carried ? undefined : payload;
    const load = carried
      ? Promise.resolve({ rows: [JSON.parse(payload) as EventRow] })
      : reader.query<EventRow>(
          `select tenant_id, account_id, seq, topic, frame_type, kind, created_at, data from account_events where id = $1`,
          [id],
        );
    chain = chain
      .then(async () => {
        const { rows } = await load;
        if (rows[0]) deliver(rows[0]);
      })
      .catch((err: unknown) => logger.error({ err, id }, 'event fan-out failed'));
  };

  const connection = await startNotices(
    databaseUrl,
    [
      {
        channels: {
          account_events: onEvent,
          credential_revoked: (credentialId) => {
            for (const fn of revocations.get(credentialId) ?? []) fn();
          },
        },
        async ready() {
          const g = gate;
          if (!g) return;
          const seen = losses;
          await g.before;
          await catchUp(g.lostAt);
          if (seen !== losses || gate !== g) return;
          gate = undefined;
          g.open();
        },
        up: () => undefined,
        lost() {
          losses++;
          if (gate || stopped) return;
          let open!: () => void;
          const opened = new Promise<void>((resolve) => (open = resolve));
          gate = { open, before: chain, lostAt: Date.now() };
          chain = chain.then(() => opened);
        },
      },
    ],
    logger,
    { application: EVENT_HUB_APPLICATION, name: 'event hub' },
  );

  return {
    subscribe(tenantId, accountIds, fn) {
      const keys = accountIds.map((a) => keyOf(tenantId, a));
      accountIds.forEach((accountId, i) => {
        const key = keys[i];
        let f = followed.get(key);
        if (!f) {
          const fresh: Followed = { tenantId, accountId, fns: new Set() };
          followed.set(key, (f = fresh));
          // Where a catch-up starts for an account that gets no event before the connection is lost.
          reader
            .query<{ seq: number }>(
              'select coalesce(max(seq), 0)::int as seq from account_events where account_id = $1 and tenant_id = $2',
              [accountId, tenantId],
            )
            .then(({ rows }) => (fresh.base = rows[0].seq))
            .catch((err: unknown) => logger.warn({ err, accountId }, 'event hub could not read the last seq'));
        }
        f.fns.add(fn);
      });
      return () =>
        keys.forEach((k) => {
          const f = followed.get(k);
          if (f?.fns.delete(fn) && !f.fns.size) followed.delete(k);
        });
    },
    onRevoked(credentialId, fn) {
      const fns = revocations.get(credentialId) ?? revocations.set(credentialId, new Set()).get(credentialId)!;
      fns.add(fn);
      return () => {
        fns.delete(fn);
        if (!fns.size && revocations.get(credentialId) === fns) revocations.delete(credentialId);
      };
    },
    async stop() {
      stopped = true;
      gate?.open();
      gate = undefined;
      await chain;
      await connection.stop();
      await reader.end();
    },
  };
}
