/**
 * The worker's limit on a call into its workflow sandbox (worker/isolate-timeout.ts, patches/README.md): the installed
 * SDK carries the patch `npm ci` applies, so the default (0) runs without Node's per-call watchdog; a configured limit
 * is passed as given.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { isolateExecutionTimeout, sandboxTimeoutIsOptional } from '../../worker/isolate-timeout.js';

/** The least a configuration needs (test/unit/config.test.ts). */
const BASE = {
  DATABASE_URL: 'postgres://platform:db-password-1@db.internal:5432/platform',
  JWT_SECRET: 'a-production-secret-of-forty-characters!!',
};

describe('isolateExecutionTimeout', () => {
  it('the installed @temporalio/worker is patched, and the default configuration asks for no limit without a warning', () => {
    expect(sandboxTimeoutIsOptional()).toBe(true);
    const warnings: string[] = [];
    const ms = loadConfig(BASE).workflowIsolateTimeoutMs;
    expect(ms).toBe(0);
    expect(isolateExecutionTimeout(ms, (w) => warnings.push(w))).toEqual({ isolateExecutionTimeout: 0 });
    expect(warnings).toEqual([]);
  });

  it('a configured limit is passed as given; a negative one is refused by the configuration', () => {
    const cfg = loadConfig({ ...BASE, WORKFLOW_ISOLATE_TIMEOUT_MS: '2500' });
    expect(isolateExecutionTimeout(cfg.workflowIsolateTimeoutMs, () => undefined)).toEqual({
      isolateExecutionTimeout: 2500,
    });
    expect(() => loadConfig({ ...BASE, WORKFLOW_ISOLATE_TIMEOUT_MS: '-1' })).toThrow(/WORKFLOW_ISOLATE_TIMEOUT_MS/);
  });
});
