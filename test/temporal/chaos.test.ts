/**
 * The short chaos run (README "Running at scale"; `npm run chaos` is the long one): the reference cluster
 * (the Temporal server on PostgreSQL, 2 apis, 3 workers) on a PostgreSQL server of the run's own, the four
 * venue simulators, 8 accounts composing market orders, resting and cancelled limits, staged and armed
 * brackets, flatten and reverse batches through both apis for 30 s, while workers are SIGKILLed every few seconds
 * (a fresh one started for each), the Temporal server is killed and restarted and PostgreSQL restarted.
 * The reconciliation (scripts/lib/chaos/reconcile.ts) finds nothing lost, doubled or stuck.
 */
import { describe, expect, inject, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runChaos } from '../../scripts/lib/chaos/run.js';

describe('chaos (short): worker kills, a Temporal and a PostgreSQL restart', () => {
  it('loses, doubles and strands nothing', async () => {
    const runDir = mkdtempSync(path.join(tmpdir(), 'chaos-test-'));
    const lines: string[] = [];
    try {
      const report = await runChaos({
        driveMs: 30_000,
        killEveryMs: 4_000,
        minKills: 5,
        accounts: { paper: 6, routed: 2 },
        settleMs: 60_000,
        runDir,
        bundlePath: inject('workflowBundlePath'), // the run's global setup built it: no second bundling here
        log: (line) => lines.push(line),
        processLog: process.env.TEST_LOG_LEVEL ? (line) => console.log(line) : undefined,
      });
      const findings = JSON.stringify(
        { ...report.reconciliation, driver: report.driver, log: lines.slice(-30) },
        null,
        1,
      );
      expect(report.kills, findings).toBeGreaterThanOrEqual(5);
      expect(report.workerCrashes, findings).toBe(0);
      expect({ temporal: report.temporalRestarts, postgres: report.postgresRestarts }).toEqual({
        temporal: 1,
        postgres: 1,
      });
      // Work of every kind went through, and the faults cost no answer the retries could not recover.
      expect(report.intents, findings).toBeGreaterThan(10);
      expect(report.batches, findings).toBeGreaterThan(0);
      expect(report.driver.unanswered, findings).toBe(0);
      expect(report.reconciliation.lost, findings).toEqual([]);
      expect(report.reconciliation.duplicated, findings).toEqual([]);
      expect(report.reconciliation.stuck, findings).toEqual([]);
      expect(report.ok).toBe(true);
    } finally {
      rmSync(runDir, { recursive: true, force: true });
    }
  }, 240_000);
});
