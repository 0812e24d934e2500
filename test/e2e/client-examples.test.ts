/**
 * The examples of the TypeScript client (examples/, README "TypeScript client") run as their README says, each a
 * child process (`node --import tsx examples/<name>.ts`) with `API_URL`, `TENANT`, `API_KEY`, `API_SECRET` of a
 * fresh trader of a real stack: each exits 0 having printed what it narrates.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Stack } from '../support/stack.js';
import { startStackWithMark } from '../support/trading.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Runs `examples/<name>.ts` with `env` added; resolves its exit code and stdout (rejects after 60 s). */
function runExample(name: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `examples/${name}.ts`], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const timer = setTimeout(
      () => (child.kill('SIGKILL'), reject(new Error(`${name}: no exit in 60 s; ${out}`))),
      60_000,
    );
    child.once('exit', (code) => (clearTimeout(timer), resolve({ code, out })));
  });
}

describe('client examples', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStackWithMark('BTC.PAPER', 0.5);
  });
  afterAll(async () => s?.stop());

  /** The example's environment: the stack's API and tenant and a new fullTrading trader. */
  const envOf = async () => {
    const t = await s.trader();
    return { API_URL: s.api.baseUrl, TENANT: s.tenant.slug, API_KEY: t.apiKey, API_SECRET: t.apiSecret };
  };

  it('market-order: composes a market buy and follows it to filled', async () => {
    const { code, out } = await runExample('market-order', await envOf());
    expect(code, out).toBe(0);
    expect(out).toMatch(/composed \S+ \(signed_pending_dispatch\)/);
    expect(out).toMatch(/fill 0\.01 @ \d+/);
    expect(out).toMatch(/filled \(filled\) avg \d+/);
  });

  it('flatten: cancels the resting order, closes the long, ends flat', async () => {
    const { code, out } = await runExample('flatten', await envOf());
    expect(code, out).toBe(0);
    expect(out).toMatch(/leg \d+ cancel BTC\.PAPER .*→ canceled/);
    expect(out).toMatch(/leg \d+ close BTC\.PAPER sell 0\.02 → filled at \d+/);
    expect(out).toContain('open positions now: 0');
  });

  it('bracket: attaches a bracket to a market buy, sees it armed, moves it', async () => {
    const { code, out } = await runExample('bracket', await envOf());
    expect(code, out).toBe(0);
    expect(out).toMatch(/bracket \S+ staged: tp \d+, sl \d+/);
    expect(out).toMatch(/parent filled; bracket armed/);
    expect(out).toMatch(/moved: tp \d+, sl \d+/);
  });
});
