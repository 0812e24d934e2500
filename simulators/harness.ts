/**
 * What every venue simulator shares: its injectable faults (a lost acknowledgement, a refusal)
 * and serving its HTTP server on 127.0.0.1.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One-shot faults a test arms: the next accepted order loses its answer, or the next order is refused. */
export class Faults {
  private drop = false;
  private reject: string | null = null;

  /** The next accepted order is kept but its response is never sent (the socket is destroyed). */
  dropNextAck(): void {
    this.drop = true;
  }

  /** The next order is refused with `reason` (the venue's own error shape). */
  rejectNext(reason: string): void {
    this.reject = reason;
  }

  /** The armed refusal, once (null when none). */
  takeRejection(): string | null {
    const reason = this.reject;
    this.reject = null;
    return reason;
  }

  /** Whether to drop this acknowledgement, once. */
  takeDrop(): boolean {
    const drop = this.drop;
    this.drop = false;
    return drop;
  }
}

/** Listens on 127.0.0.1:`port` (0 = any); answers the base URL (`http://127.0.0.1:<port>` + `path`) and `close()`. */
export async function serve(server: Server, port = 0, path = ''): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}${path}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
