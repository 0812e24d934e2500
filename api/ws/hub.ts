/**
 * Fan-out of the account event log to sockets (docs/architecture.md): each api process LISTENs on
 * `account_events`, whose payload is the appended row itself (migration EventNotice; its id when the
 * row is too long for a payload, then read here), and hands it to every subscriber of its tenant and
 * account, in log order. Works with any number of api processes because the log, not memory, is the source.
 * The same connection LISTENs on `credential_revoked` (trigger of migration PropFirm, payload: the
 * credential id) and tells the sockets of that credential at once (docs/api.md §5.2).
 */
import pg from 'pg';
import type { Logger } from 'pino';

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

export type Subscriber = (e: LoggedEvent) => void;

/** The hub of one api process. */
export interface EventHub {
  /** Registers a listener for events of these accounts in this tenant; returns the unsubscribe. */
  subscribe(tenantId: string, accountIds: string[], fn: Subscriber): () => void;
  /** Calls `fn` once `credentialId` is revoked (NOTIFY `credential_revoked`, any process); returns the unsubscribe. */
  onRevoked(credentialId: string, fn: () => void): () => void;
  stop(): Promise<void>;
}

/**
 * Starts the hub. `arrived` is told of each event's account just before the event reaches any socket
 * (the account state cache drops the account there: db/account-state-cache.ts).
 */
export async function startEventHub(
  databaseUrl: string,
  logger: Logger,
  arrived: (accountId: string) => void = () => undefined,
): Promise<EventHub> {
  const listener = new pg.Client({ connectionString: databaseUrl });
  const reader = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  listener.on('error', (err) => logger.error({ err }, 'event hub connection failed'));
  reader.on('error', (err) => logger.error({ err }, 'event hub pool error'));
  await listener.connect();
  const subs = new Map<string, Set<Subscriber>>();
  const revocations = new Map<string, Set<() => void>>();
  const keyOf = (tenantId: string, accountId: string) => `${tenantId}/${accountId}`;
  /** Deliveries keep log order even though rows are loaded asynchronously. */
  let chain = Promise.resolve();

  listener.on('notification', (n) => {
    if (!n.payload) return;
    if (n.channel === 'credential_revoked') {
      for (const fn of revocations.get(n.payload) ?? []) fn();
      return;
    }
    // The row itself (migration EventNotice), or its id when it was too long for a payload: then read it.
    const carried = n.payload.startsWith('{');
    const id = carried ? undefined : n.payload;
    const load = carried
      ? Promise.resolve({ rows: [JSON.parse(n.payload) as EventRow] })
      : reader.query<EventRow>(
          `select tenant_id, account_id, seq, topic, frame_type, kind, created_at, data from account_events where id = $1`,
          [id],
        );
    chain = chain
      .then(async () => {
        const { rows } = await load;
        const r = rows[0];
        if (!r) return;
        const event: LoggedEvent = {
          tenantId: r.tenant_id,
          accountId: r.account_id,
          seq: r.seq,
          topic: r.topic,
          frameType: r.frame_type,
          kind: r.kind,
          occurredAt: new Date(r.created_at).toISOString(),
          data: r.data,
        };
        arrived(event.accountId);
        for (const fn of subs.get(keyOf(event.tenantId, event.accountId)) ?? []) fn(event);
      })
      .catch((err: unknown) => logger.error({ err, id }, 'event fan-out failed'));
  });
  await listener.query('listen account_events');
  await listener.query('listen credential_revoked');

  return {
    subscribe(tenantId, accountIds, fn) {
      const keys = accountIds.map((a) => keyOf(tenantId, a));
      for (const k of keys) (subs.get(k) ?? subs.set(k, new Set()).get(k)!).add(fn);
      return () => keys.forEach((k) => subs.get(k)?.delete(fn));
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
      await chain;
      await listener.end();
      await reader.end();
    },
  };
}
