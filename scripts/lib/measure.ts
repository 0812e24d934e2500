/**
 * The benchmarks' measuring helpers (scripts/bench.ts, scripts/bench/*.ts): a fixed-concurrency job
 * pool and nearest-rank percentiles. No imports, so the market bench's load-generator child process
 * can use them without loading the platform.
 */

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
