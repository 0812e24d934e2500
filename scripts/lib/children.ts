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
const SETPRIV = process.platform === 'linux' ? (['/usr/bin/setpriv', '/bin/setpriv'].find((f) => existsSync(f)) ?? null) : null;

/**
 * `[command, args]` for `spawn`, so that the child gets `signal` from the kernel when this process
 * dies in any way, SIGKILL included (Linux `PR_SET_PDEATHSIG` through `setpriv --pdeathsig`, which
 * then execs the command: same pid, so `child.kill()` still reaches it). Unchanged where `setpriv`
 * is missing (macOS): there {@link killOnExit} covers every end but SIGKILL.
 */
export function dieWithParent(command: string, args: string[], signal: NodeJS.Signals = 'SIGTERM'): [string, string[]] {
  return SETPRIV ? [SETPRIV, ['--pdeathsig', signal, '--', command, ...args]] : [command, args];
}
