/**
 * `npm run chaos` (README "Running at scale"): the reference cluster broken on purpose, then reconciled
 * (scripts/lib/chaos/run.ts). It starts everything itself on a PostgreSQL server of its own (the machine's
 * is never restarted), drives 20 accounts (12 on `paper`, 8 routed to the four venue simulators) through
 * both api processes for at least 4 minutes and 50 worker kills, kills and restarts the Temporal server
 * once and PostgreSQL once, settles, reconciles, stops everything, prints the figures and writes
 * `.data/chaos.json` = `{ kills, temporalRestarts, postgresRestarts, intents, batches, lost, duplicated,
 * stuck, ok, driver, reconciliation, timings }`. Exit 0 when `ok`, else 1 (the findings are printed).
 *
 *   npm run chaos [-- --drive-s 240] [-- --kill-every-ms 4000] [-- --min-kills 50] [-- --verbose]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runChaos } from './lib/chaos/run.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    'drive-s': { type: 'string', default: '240' },
    'kill-every-ms': { type: 'string', default: '4000' },
    'min-kills': { type: 'string', default: '50' },
    verbose: { type: 'boolean', default: false },
  },
});
const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);
const report = await runChaos({
  driveMs: Number(values['drive-s']) * 1000,
  killEveryMs: Number(values['kill-every-ms']),
  minKills: Number(values['min-kills']),
  accounts: { paper: 12, routed: 8 },
  settleMs: 180_000,
  runDir: path.join(ROOT, '.data/chaos'),
  log,
  processLog: values.verbose ? log : undefined,
});
const { reconciliation: r, driver } = report;
log(
  `chaos: ${report.kills} worker kills, ${report.workerCrashes} workers exited by themselves, ${report.temporalRestarts} Temporal restart, ${report.postgresRestarts} PostgreSQL restart`,
);
log(
  `chaos: ${report.intents} intents (${driver.composed} composed by the driver, ${driver.unanswered} never answered), ${report.batches} batches, ${driver.brackets} brackets, ${r.fills} fills, ${r.events} account events`,
);
log(
  `chaos: driver steps ${JSON.stringify(driver.steps)}; ${driver.retries} retried attempts; refusals ${JSON.stringify(driver.refusals)}`,
);
log(
  `chaos: running workflows at the end ${JSON.stringify(r.running)}; webhook redeliveries deduplicated ${r.webhookRedeliveries}`,
);
for (const [what, lines] of [
  ['lost', r.lost],
  ['duplicated', r.duplicated],
  ['stuck', r.stuck],
] as const) {
  log(`chaos: ${what}: ${lines.length}`);
  for (const line of lines.slice(0, 20)) log(`  ${line}`);
}
log(
  `chaos: drive ${Math.round(report.timings.driveMs / 1000)} s, settle ${Math.round(report.timings.settleMs / 1000)} s, total ${Math.round(report.timings.totalMs / 1000)} s: ${report.ok ? 'OK' : 'FAILED'}`,
);
mkdirSync(path.join(ROOT, '.data'), { recursive: true });
writeFileSync(path.join(ROOT, '.data/chaos.json'), `${JSON.stringify(report, null, 2)}\n`);
process.exit(report.ok ? 0 : 1);
