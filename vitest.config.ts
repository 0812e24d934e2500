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
    // `expect.poll` waits for what a page or the stack shows after a round trip (a sign-in, a frame): vitest's 1 s
    // default is shorter than a 2-vCPU machine needs under load.
    expect: { poll: { timeout: 10_000 } },
  },
});
