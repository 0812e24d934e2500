/**
 * Child processes that must not outlive the script that started them (`npm run dev`, tests,
 * benchmarks; README "Graceful shutdown"): a `process.on('exit')` hook signals the child
 * synchronously when this process exits before having stopped it — a `process.exit()` from any
 * handler (a signal handler of some library included), an uncaught error — and, where the OS allows
 * it ({@link dieWithParent}), a signal from the kernel when this process is killed outright.
 * Signals themselves are handled by lifecycle.ts `takeOverSignals`.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';

/**
 * Sends `signal` to `child` from a `process.on('exit')` hook if it still runs when this process
 * exits; the hook is removed once the child exits. Returns `child`.
 */
export function killOnExit<C extends ChildProcess>(child: C, signal: NodeJS.Signals = 'SIGTERM'): C {
  const reap = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  process.once('exit', reap);
  child.once('exit', () => process.removeListener('exit', reap));
  return child;
}

/** util-linux's `setpriv` when this is Linux and it is installed (Debian and Ubuntu have it in the base system), else null. */
const SETPRIV =
  process.platform === 'linux' ? (['/usr/bin/setpriv', '/bin/setpriv'].find((f) => existsSync(f)) ?? null) : null;

/**
 * `[command, args]` for `spawn`, so that the child gets `signal` from the kernel when this process
 * dies in any way, SIGKILL included (Linux `PR_SET_PDEATHSIG` through `setpriv --pdeathsig`, which
 * then execs the command: same pid, so `child.kill()` still reaches it). Unchanged where `setpriv`
 * is missing (macOS): there {@link killOnExit} covers every end but SIGKILL.
 */
export function dieWithParent(command: string, args: string[], signal: NodeJS.Signals = 'SIGTERM'): [string, string[]] {
  return SETPRIV ? [SETPRIV, ['--pdeathsig', signal, '--', command, ...args]] : [command, args];
}

/** What {@link watchChild} knows of a started server process. Its functions use no `this`: take them apart freely. */
export interface WatchedChild {
  /** Resolves once the process has exited or could not be started. */
  exited: Promise<void>;
  /** Why it ended (`exited (code 1)`, `could not run <binary>: …`), or undefined while it runs. */
  exitInfo: () => string | undefined;
  /** The last 40 lines it printed, ready to append to an error message (or ` (it printed nothing)`). */
  lastLines: () => string;
  /** SIGTERM, then SIGKILL after `graceMs` (default 10 000 ms); resolves once it has exited. Idempotent. */
  stop: (graceMs?: number) => Promise<void>;
}

/**
 * Watches a server process started by a script (the Temporal dev server, the Temporal server): keeps
 * the tail of its stdout and stderr for error messages, passes each line to `log`, records how it
 * ended, and signals it with `reapSignal` if this process exits first ({@link killOnExit}).
 * `binary` names it in the exit reason.
 */
export function watchChild(
  child: ChildProcess,
  binary: string,
  opts: { log?: (line: string) => void; reapSignal?: NodeJS.Signals } = {},
): WatchedChild {
  killOnExit(child, opts.reapSignal ?? 'SIGTERM');
  const tail: string[] = [];
  const onLine = (line: string) => {
    tail.push(line);
    if (tail.length > 40) tail.shift();
    opts.log?.(line);
  };
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', onLine);
  let exitInfo: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('error', (err) => {
      exitInfo ??= `could not run ${binary}: ${err.message}`;
      resolve();
    });
    child.once('exit', (code, signal) => {
      exitInfo ??= `exited (${signal ?? `code ${code}`})`;
      resolve();
    });
  });
  let stopping: Promise<void> | undefined;
  return {
    exited,
    exitInfo: () => exitInfo,
    lastLines: () =>
      tail.length ? `\n--- last lines of the server's output ---\n${tail.join('\n')}` : ' (it printed nothing)',
    stop: (graceMs = 10_000) =>
      (stopping ??= (async () => {
        if (exitInfo !== undefined) return;
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(killer);
      })()),
  };
}
