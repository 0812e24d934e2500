/**
 * db/pool.ts: a pool whose connections PostgreSQL terminates (`57P01`, as on a restart) while transactions and
 * statements run never takes the process down; the statements in flight fail and the next ones get new connections.
 * A plain `pg.Pool` with a pool-level `'error'` listener only, under the same load, dies of an `'error'` event on a
 * checked-out client (the hazard `npm run chaos` found: a worker exited when PostgreSQL restarted).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Runs test/support/pool-terminations.ts for `ms` on the `pool` kind (`POOL`); its exit code, counts and error output. */
function terminations(pool: 'platform' | 'bare', ms: number) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'test/support/pool-terminations.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: inject('databaseUrl'), TERMINATE_MS: String(ms), POOL: pool },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const last = run.stdout.trim().split('\n').at(-1) ?? '';
  return { status: run.status, counts: last.startsWith('{') ? JSON.parse(last) : null, stderr: run.stderr };
}

describe('pg pools under terminated connections', () => {
  it('the platform’s pool lives through 3 s of terminations; its transactions and statements go on', () => {
    const { status, counts, stderr } = terminations('platform', 3_000);
    expect(status, stderr).toBe(0);
    expect(counts.terminated).toBeGreaterThan(20);
    expect(counts.errors).toBeGreaterThan(0); // connections were really cut under the statements
    expect(counts.ops).toBeGreaterThan(counts.errors);
  });

  it('a plain pg.Pool under the same load dies of an unheard error event on a client', () => {
    const { status, stderr } = terminations('bare', 10_000);
    expect(status).not.toBe(0);
    expect(stderr).toMatch(/Emitted 'error' event on Client instance/);
  });
});
