/** A worker as a real child process (`worker/main.ts`), for tests that kill it. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Stack } from './stack.js';
import { stackEnv } from './stack.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Starts a worker process for the stack's task queue; `env` adds e.g. FAULT_CRASH. */
export function spawnWorker(s: Stack, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
    cwd: ROOT,
    env: { ...stackEnv(s.config), ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/** Resolves when the process has exited (at once if it already has). */
export function exited(c: ChildProcess): Promise<void> {
  return new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));
}
