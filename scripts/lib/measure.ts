/**
 * The benchmarks' measuring helpers (scripts/bench.ts, scripts/bench/*.ts): a fixed-concurrency job
 * pool, nearest-rank percentiles and per-process CPU time. Node built-ins only, so the market bench's
 * load-generator child process can use them without loading the platform.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The `p`-th percentile (nearest rank, 0–100) of `xs`; NaN when `xs` is empty. */
export function pct(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

/** Runs `job(0)` … `job(n - 1)` with at most `c` at a time; the results in index order. Rejects with the first job that throws. */
export async function pool<T>(n: number, c: number, job: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await job(i);
      }
    }),
  );
  return out;
}

/**
 * Runs `job(i)` from `c` loops at once, each starting its next job as soon as the last ends, until
 * `seconds` have passed (jobs under way then are awaited): how many ran, over how long (ms).
 */
export async function sustain(c: number, seconds: number, job: (i: number) => Promise<void>) {
  const start = performance.now();
  const deadline = start + seconds * 1000;
  let next = 0;
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (performance.now() < deadline) await job(next++);
    }),
  );
  return { jobs: next, wallMs: performance.now() - start };
}

/** /proc's clock ticks per second (USER_HZ on Linux). */
const TICKS_PER_S = 100;

/** CPU time (user + system, every thread) `pid` has used, in ms (Linux /proc); 0 when it is gone. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S;
  } catch {
    return 0;
  }
}

/** The pids of every process whose command is `postgres` (the server's backends included); none when pgrep finds none. */
export function postgresPids(): number[] {
  try {
    return execFileSync('pgrep', ['-x', 'postgres'], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * Starts counting the CPU time of process groups (group name → its pids, asked again at the end, so that
 * PostgreSQL backends started meanwhile count; a process that ended meanwhile loses what it used).
 * @returns a function that answers each group's CPU time since the start, in ms.
 */
export function cpuMeter(groups: () => Record<string, number[]>): () => Record<string, number> {
  const before = new Map(Object.values(groups()).flatMap((pids) => pids.map((p) => [p, cpuMs(p)] as const)));
  return () =>
    Object.fromEntries(
      Object.entries(groups()).map(([g, pids]) => [g, pids.reduce((s, p) => s + cpuMs(p) - (before.get(p) ?? 0), 0)]),
    );
}
