import { defineConfig } from 'vitest/config';

/**
 * One real Temporal dev server and one fresh PostgreSQL database per run (test/support/global-setup.ts).
 * Files run one at a time: they share the server and the database, and the worker-restart tests
 * start child processes.
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One module graph for every file (the fork imports the platform's modules once, not once per file: 830 → 650 s
    // here). A file must not depend on a fresh module instance, so no `vi.mock` of the platform's modules: observe
    // through what a user sees (answers, metrics, rows) instead.
    isolate: false,
    // `expect.poll` waits for what a page or the stack shows after a round trip (a sign-in, a frame): vitest's 1 s
    // default is shorter than a 2-vCPU machine needs under load.
    expect: { poll: { timeout: 10_000 } },
  },
});
