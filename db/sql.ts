/**
 * Plain SQL for the order's hot path (issue 15): the ledger's transaction (modules/oms/activities/ledger.ts) and what
 * it calls run as prepared statements on a `pg` pool of the worker's, without MikroORM's unit of work, hydration and
 * query building, which cost more per statement than the statement itself; every other path keeps MikroORM. The
 * same SQL runs inside a MikroORM transaction through {@link sqlOf}, so a function written against {@link Sql} (the
 * event append, the state snapshot, mark reads) has one implementation for both.
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';

/**
 * Runs one statement: `text` with `$1`, `$2`… placeholders (a number may repeat), `values` in their order; answers
 * its rows as PostgreSQL returns them (numeric and bigint as strings, json parsed). Pass lists and json as JSON text
 * (`$1::jsonb`): the two runners format arrays differently.
 */
export interface Sql {
  rows<R extends object>(text: string, values?: readonly unknown[]): Promise<R[]>;
  /**
   * Sends a statement that answers nothing (an insert, update or upsert): at once through a MikroORM fork or a pool;
   * in a ledger {@link transaction}, queued and sent with the writes queued after it as ONE statement (each a
   * data-modifying `with` part) before the transaction's next read or its commit, so its errors surface there.
   */
  write(text: string, values?: readonly unknown[]): Promise<void>;
  /**
   * Sends a read now that a later {@link Sql.rows} of the same `text` and `values` will answer (issue 15): in a ledger
   * {@link transaction} on a pipelining pool it goes out behind the statements already sent, in the same round trip,
   * and runs after them (a read sent right after the account lock reads what the lock's previous holder committed).
   * Dropped when a write is sent before that `rows` (which then reads again), and everywhere else a no-op.
   */
  prefetch(text: string, values: readonly unknown[]): void;
}

/**
 * The statements of `em`'s transaction (or of its own connection outside one), `$n` placeholders rewritten to
 * MikroORM's `?`. The unit of work's pending changes are flushed before each statement, so a statement sees them.
 */
export function sqlOf(em: EntityManager): Sql {
  return immediate(async <R extends object>(text: string, values: readonly unknown[] = []): Promise<R[]> => {
    await em.flush();
    const ordered: unknown[] = [];
    const q = text.replace(/\$(\d+)/g, (_, n: string) => (ordered.push(values[Number(n) - 1]), '?'));
    return em.getConnection().execute<R[]>(q, ordered, 'all', em.getTransactionContext());
  });
}

/** The {@link Sql} of a statement runner whose writes go at once (the runner's rows dropped). */
const immediate = (rows: Sql['rows']): Sql => ({
  rows,
  write: async (text, values) => void (await rows(text, values)),
  prefetch: () => undefined,
});

/** Where a {@link Sql} function runs: a {@link Sql} as it is, a MikroORM fork through {@link sqlOf}. */
export type Db = Sql | EntityManager;

/** The {@link Sql} of `db` ({@link Db}). */
export const sqlFor = (db: Db): Sql => ('rows' in db ? db : sqlOf(db));

/** Prepared statement names by text: one name per distinct statement, the same in every connection. */
const statementNames = new Map<string, string>();
const nameOf = (text: string) => {
  let name = statementNames.get(text);
  if (!name) statementNames.set(text, (name = `p${createHash('sha1').update(text).digest('hex').slice(0, 16)}`));
  return name;
};

/**
 * The statements of a `pg` client (one connection: a transaction's) or pool, each sent as a named prepared statement:
 * PostgreSQL parses and plans it once per connection, then binds values.
 */
export function sqlOfClient(client: pg.ClientBase | pg.Pool): Sql {
  return immediate(async <R extends object>(text: string, values: readonly unknown[] = []): Promise<R[]> => {
    const res = await client.query<R & pg.QueryResultRow>({ name: nameOf(text), text, values: [...values] });
    return res.rows;
  });
}

/** `text` with every placeholder `$n` renumbered `$(n + offset)`, to put it in a statement after `offset` other values. */
export const shiftPlaceholders = (text: string, offset: number): string =>
  text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);

/**
 * Whether `client` sends each statement without waiting for the previous one's answer (`pg`'s `pipeline` option, the
 * worker's ledger pool; docs/architecture.md "Data and events"): PostgreSQL still runs them one after the
 * other, in the order sent, each on its own snapshot, and an error aborts the transaction for those behind it.
 */
const pipelines = (client: pg.ClientBase) => (client as pg.Client).pipeline === true;

/** The key of a prefetched read: its text and values. */
const readKey = (text: string, values: readonly unknown[]) => `${text}\u0000${JSON.stringify(values)}`;

/**
 * The {@link Sql} of a ledger transaction's connection: writes are queued ({@link Sql.write}) and `flush()` sends
 * them as one statement, `with w0 as (<write>), w1 as (…) select 1`, their placeholders renumbered. A write whose text
 * is already queued (a second fill, a second update of the same kind) flushes the queue first: the parts of one
 * statement see the same snapshot and must not touch the same rows. `flush()` hands the statement to `pg` before it
 * returns its promise, so a statement sent right after it (the commit, a read) goes out behind it. On a pipelining
 * connection a read goes out behind the queued writes without waiting for their answer (an error in them fails the
 * read too), and {@link Sql.prefetch} sends reads ahead.
 */
function writeBehind(client: pg.ClientBase): Sql & { flush(): Promise<void> } {
  const direct = sqlOfClient(client);
  const pipelined = pipelines(client);
  let queue: { text: string; values: readonly unknown[] }[] = [];
  let ahead = new Map<string, Promise<unknown[]>>();
  const flush = (): Promise<void> => {
    const batch = queue;
    queue = [];
    if (!batch.length) return Promise.resolve();
    ahead = new Map(); // a read sent before these writes would not see them
    if (batch.length === 1) return direct.write(batch[0].text, batch[0].values);
    const values: unknown[] = [];
    const parts = batch.map((w, i) => {
      const offset = values.length;
      values.push(...w.values);
      return `w${i} as (${shiftPlaceholders(w.text, offset)})`;
    });
    return direct.write(`with ${parts.join(', ')} select 1`, values);
  };
  return {
    async rows<R extends object>(text: string, values: readonly unknown[] = []): Promise<R[]> {
      // A read's key is built only while a prefetch waits (queued writes have cleared them by the time they go out).
      const key = ahead.size && !queue.length ? readKey(text, values) : undefined;
      const sent = key === undefined ? undefined : ahead.get(key);
      if (sent) {
        ahead.delete(key!);
        return sent as Promise<R[]>;
      }
      if (!queue.length) return direct.rows<R>(text, values);
      if (!pipelined) {
        await flush();
        return direct.rows<R>(text, values);
      }
      const [, rows] = await Promise.all([flush(), direct.rows<R>(text, values)]);
      return rows;
    },
    async write(text: string, values: readonly unknown[] = []) {
      if (queue.some((w) => w.text === text)) await flush();
      queue.push({ text, values });
    },
    prefetch(text, values) {
      if (!pipelined || queue.length) return;
      const sent = direct.rows(text, values);
      sent.catch(() => undefined); // an unread prefetch's error is the transaction's: its next statement fails too
      ahead.set(readKey(text, values), sent);
    },
    flush,
  };
}

/**
 * Runs `work` in one transaction on a connection of `pool` (read committed, as MikroORM's): its writes are sent in
 * batches (see {@link writeBehind}), the last before the commit; commits when it resolves, rolls back and rethrows
 * when it (or a batch of its writes) throws. On a pipelining pool (`pg`'s `pipeline` option: the worker's ledger
 * pool) `begin` goes out with the first statement and the commit with the last batch of writes, two round trips fewer
 * (issue 15); a failed batch makes that commit a rollback, and the batch's error is thrown. A connection lost
 * meanwhile (PostgreSQL restarting: `57P01`) makes the next statement reject, never an unhandled `error` event; a lost
 * connection, or one whose rollback fails, is destroyed, not reused.
 */
export async function transaction<T>(pool: pg.Pool, work: (tx: Sql) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A connection lost meanwhile marks the client broken, so it is destroyed at release, not reused. (The platform's
  // pools also give each client a listener of its own, db/pool.ts; this one keeps a plain pool from crashing too.)
  const lost = (err: Error) => (broken = err);
  client.on('error', lost);
  try {
    const pipelined = pipelines(client);
    const began = client.query('begin');
    began.catch(() => undefined); // awaited below; a lost connection fails the statements behind it too
    if (!pipelined) await began;
    const tx = writeBehind(client);
    const out = await work(tx);
    await began;
    if (pipelined) await Promise.all([tx.flush(), client.query('commit')]);
    else await tx.flush().then(() => client.query('commit'));
    return out;
  } catch (err) {
    await client.query('rollback').catch((e: Error) => (broken = e));
    throw err;
  } finally {
    client.off('error', lost);
    client.release(broken);
  }
}

/** `snake_case` of a camelCase property name: the column name MikroORM's default naming strategy gives it. */
const column = (prop: string) => prop.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The select list of `props` of a table (alias `alias`) named as the entity's properties:
 * `a.tenant_id as "tenantId", …`, so a row reads as the MikroORM row type of that entity. With `prefix`, each name
 * starts with it (`"b.tenantId"`), so one statement can read several tables' rows side by side ({@link prefixed}).
 */
export function selectList(props: readonly string[], alias: string, prefix = ''): string {
  return props.map((p) => `${alias}.${column(p)} as "${prefix}${p}"`).join(', ');
}

/**
 * `row` with its `keys` as Dates (null stays null): a timestamp column reads as a Date through {@link sqlOfClient} but
 * as its text through {@link sqlOf} (MikroORM's driver leaves timestamps unparsed for its own hydration), so a row
 * that may come through either ({@link Db}) is made the same here. Changes `row` in place and answers it.
 */
export function withDates<T extends object>(row: T, keys: readonly (keyof T)[]): T {
  for (const k of keys) {
    const v = row[k];
    if (typeof v === 'string') (row as Record<keyof T, unknown>)[k] = new Date(v);
  }
  return row;
}

/**
 * The part of `row` whose names start with `prefix`, the prefix taken off (a row read with {@link selectList}'s
 * `prefix`); null when its `present` property is null (the left-joined row was not there).
 */
export function prefixed<T>(row: Record<string, unknown>, prefix: string, present: string): T | null {
  if (row[prefix + present] == null) return null;
  const out: Record<string, unknown> = {};
  for (const key in row) if (key.startsWith(prefix)) out[key.slice(prefix.length)] = row[key];
  return out as T;
}

/**
 * `insert into <table> (<columns of row's keys>) values ($1…)` with `row`'s values (objects other than dates as
 * JSON text; undefined ones left out: the column's default), optionally with `tail` (an `on conflict` or
 * `returning` clause). With `from` (a table expression with its condition, e.g. `locked where seq is not null`), the
 * row is `select $1… from <from>` instead: inserted only when that yields a row (PostgreSQL types the placeholders
 * from the columns either way). One statement text per table, key set, tail and source.
 */
export function insertStatement(table: string, row: Record<string, unknown>, tail = '', from?: string) {
  const keys = Object.keys(row).filter((k) => row[k] !== undefined);
  const placeholders = keys.map((_, i) => `$${i + 1}`).join(', ');
  const source = from ? `select ${placeholders} from ${from}` : `values (${placeholders})`;
  const text = `insert into ${table} (${keys.map(column).join(', ')}) ${source} ${tail}`;
  return { text: text.trim(), values: keys.map((k) => param(row[k])) };
}

/** Writes {@link insertStatement}'s insert through `sql` ({@link Sql.write}: in a ledger transaction, batched). */
export async function insertRow(sql: Sql, table: string, row: Record<string, unknown>, tail = ''): Promise<void> {
  const { text, values } = insertStatement(table, row, tail);
  await sql.write(text, values);
}

/**
 * `update <table> set <columns of changes' keys> where <where's columns>` with their values (as {@link insertRow}),
 * written as {@link Sql.write} writes. Nothing is sent when `changes` is empty.
 */
export async function updateRow(
  sql: Sql,
  table: string,
  changes: Record<string, unknown>,
  where: Record<string, unknown>,
): Promise<void> {
  if (!Object.keys(changes).length) return;
  const { text, values } = updateStatement(table, changes, where);
  await sql.write(text, values);
}

/**
 * {@link updateRow}'s statement (`text` with `$1…`, `values`): `update <table> set <changes' columns> where <where's
 * columns equal>`, for a caller that adds to its condition or makes it part of a larger statement. `changes` must not
 * be empty.
 */
export function updateStatement(table: string, changes: Record<string, unknown>, where: Record<string, unknown>) {
  const set = Object.keys(changes);
  const keys = Object.keys(where);
  const text = `update ${table} set ${set.map((k, i) => `${column(k)} = $${i + 1}`).join(', ')} where ${keys
    .map((k, i) => `${column(k)} = $${set.length + i + 1}`)
    .join(' and ')}`;
  return { text, values: [...set.map((k) => param(changes[k])), ...keys.map((k) => param(where[k]))] };
}

/** A value as a statement parameter: dates and scalars as they are, other objects (json columns) as JSON text. */
const param = (v: unknown) => (v !== null && typeof v === 'object' && !(v instanceof Date) ? JSON.stringify(v) : v);
