/**
 * The platform's `pg` pools (docs/architecture.md "Data and events"): a connection PostgreSQL closes (a restart or
 * `pg_terminate_backend`: `57P01`) never takes the process down. `pg` reports such a close as an `'error'` event on
 * the connection's client, and an `'error'` event nobody listens to is an uncaught exception. `pg-pool` listens only
 * while a client is idle (and re-emits on the pool, where `onIdleError` hears it): from the moment `pool.connect()`
 * hands a client out until its holder listens, or all the while for a holder that does not, nobody does. Found by
 * `npm run chaos` (a worker exited when PostgreSQL restarted) and reproduced by test/unit/pg-pool.test.ts. So every
 * client gets a listener of its own when it connects; the statement in flight still rejects, and the pool discards
 * the client when it is released with the error (db/sql.ts `transaction`) or found dead while idle.
 */
import pg from 'pg';

/**
 * A new `pg` pool of `config` whose clients never raise an unheard `'error'`: `onIdleError` hears errors of idle
 * clients (log them); a checked-out client's error is its statement's rejection.
 */
export function newPool(config: pg.PoolConfig, onIdleError: (err: Error) => void): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('error', onIdleError);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
