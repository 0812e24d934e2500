/**
 * The benchmarks' shared report (README "Benchmark", issue 15's targets): each bench merges its part
 * (`p1`, `p2`, `p3`, `p4`, `routed`) into `.data/bench.json` and prints one goal line per target with
 * PASS or FAIL. No platform imports (the market bench's client child process loads this folder).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** `.data/bench.json`, beside the repository's other local data. */
export const BENCH_JSON = path.resolve(import.meta.dirname, '../../.data/bench.json');

/** Merges `part` into {@link BENCH_JSON} (keys of other benches are kept), stamped with the time and Node version. */
export function recordBench(part: Record<string, unknown>): void {
  let current: Record<string, unknown> = {};
  try {
    current = JSON.parse(readFileSync(BENCH_JSON, 'utf8')) as Record<string, unknown>;
  } catch {
    // first bench of the run, or an unreadable file: start afresh
  }
  mkdirSync(path.dirname(BENCH_JSON), { recursive: true });
  writeFileSync(
    BENCH_JSON,
    JSON.stringify({ ...current, ...part, at: new Date().toISOString(), node: process.version }, null, 2),
  );
}

/** Prints and returns one target's line: `<target>: <measured> (goal <goal>) PASS|FAIL`. */
export function goalLine(target: string, measured: string, goal: string, pass: boolean): string {
  const line = `${target}: ${measured} (goal ${goal}) ${pass ? 'PASS' : 'FAIL'}`;
  console.log(line);
  return line;
}
