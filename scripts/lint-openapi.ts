/**
 * `npm run lint:openapi` (a step of `npm run lint`, README "Tests" → Lint): Redocly's `recommended` ruleset
 * (`redocly.yaml`: all of it but the licence rule) on the committed `docs/openapi.json`, which
 * test/unit/api-docs.test.ts proves is what the api serves. Redocly exits 0 on warnings; this step fails on any
 * problem, error or warning, and prints each as `severity rule pointer: message`.
 * @throws (exit 1) on any problem, or when Redocly cannot run (its output is printed).
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fromRoot } from '../project-root.js';

/** The document linted, relative to the repository root. */
const DOCUMENT = 'docs/openapi.json';

/** One problem of Redocly's `--format=json` report. */
interface Problem {
  ruleId: string;
  severity: string;
  message: string;
  location?: { pointer?: string }[];
}

const run = spawnSync(
  process.execPath,
  [
    createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js'),
    'lint',
    DOCUMENT,
    '--format=json',
    '--max-problems=1000',
  ],
  { cwd: fromRoot(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
);
let report: { totals: { errors: number; warnings: number }; problems: Problem[] };
try {
  report = JSON.parse(run.stdout) as typeof report;
} catch {
  console.error(
    `lint:openapi: redocly gave no JSON report (exit ${run.status ?? run.signal})\n${run.stdout}${run.stderr}`,
  );
  process.exit(1);
}
for (const p of report.problems)
  console.log(`${p.severity} ${p.ruleId} ${p.location?.[0]?.pointer ?? ''}: ${p.message}`);
const { errors, warnings } = report.totals;
console.log(`lint:openapi: ${DOCUMENT}: ${errors} errors, ${warnings} warnings (redocly.yaml)`);
process.exitCode = errors + warnings > 0 ? 1 : 0;
