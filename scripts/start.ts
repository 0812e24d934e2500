/**
 * `npm start` (README "Processes and ports"): the one-box deploy, compiled (`node dist/scripts/start.js`
 * after `npm run build`): runs the compiled api (`dist/api/server.js`) and worker
 * (`dist/worker/main.js`) as two child processes with this process's environment, their output
 * passed through. A stop signal (SIGINT, SIGTERM, SIGHUP) goes to both, each drains (README
 * "Graceful shutdown") and this process exits 0 once both have; a second signal exits at once. When
 * either child exits on its own, the other is stopped and this process exits 1. Run the two with
 * `npm run start:api` / `npm run start:worker` instead to scale them separately.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { takeOverSignals } from '../lifecycle.js';
import { killOnExit } from './lib/children.js';

const DIST = path.resolve(import.meta.dirname, '..');
const children: ChildProcess[] = ['api/server.js', 'worker/main.js'].map((file) =>
  killOnExit(spawn(process.execPath, [path.join(DIST, file)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })),
);
const exited = children.map((c) => new Promise<void>((r) => c.once('exit', () => r())));

let stopping = false;
const stop = (code: number) => {
  if (stopping) return;
  stopping = true;
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  void Promise.all(exited).then(() => process.exit(code));
};
takeOverSignals(() => stop(0));
for (const c of children)
  c.once(
    'exit',
    (code, signal) =>
      !stopping && (console.error(`start: ${c.spawnargs[1]} exited (${signal ?? code}); stopping the other`), stop(1)),
  );
