/**
 * Draining the api's HTTP server and WebSockets on shutdown (README "Graceful shutdown"): stop
 * accepting connections, close every WebSocket with 1001 "going away" (no other frame is sent
 * first), let in-flight HTTP requests finish on connections that then close, and cut whatever is
 * left once the grace is over.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { WebSocketServer } from 'ws';
import type { Logger } from 'pino';

/** WebSocket close code sent to every client on shutdown (RFC 6455 §7.4.1 "going away"). */
export const GOING_AWAY = 1001;

/** What {@link drainer} returns. */
export interface Drainer {
  /**
   * Drains: `server.close()` (the listening socket closes at once: new connections are refused),
   * `close(1001)` on every WebSocket, idle keep-alive connections closed, in-flight requests answered
   * with `Connection: close`. Resolves once every connection has ended, or when `graceMs` has passed:
   * then the remaining WebSockets are terminated and the remaining HTTP connections destroyed.
   * Idempotent: a second call returns the first call's promise.
   * @returns whether the grace ran out (`forced`), and how many requests and sockets were cut then.
   */
  drain(graceMs: number): Promise<{ forced: boolean; cutRequests: number; cutSockets: number }>;
}

/**
 * Tracks `server`'s in-flight responses from now on, for {@link Drainer.drain}. `wss` is read at
 * drain time (koa-websocket creates it when listening).
 */
export function drainer(server: Server, wss: () => WebSocketServer | undefined, logger: Logger): Drainer {
  const inflight = new Set<ServerResponse>();
  let draining: ReturnType<Drainer['drain']> | undefined;
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    inflight.add(res);
    res.once('close', () => inflight.delete(res));
    if (draining) res.shouldKeepAlive = false; // a request on a kept-alive connection during the drain: answer it, then close
  });

  const within = <T>(p: Promise<T>, ms: number) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), Math.max(0, ms));
      void p.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });

  return {
    drain(graceMs) {
      draining ??= (async () => {
        const deadline = Date.now() + graceMs;
        const closed = new Promise<void>((r) => server.close(() => r())); // resolves once every connection, WebSockets included, has ended
        const ws = wss();
        const sockets = [...(ws?.clients ?? [])];
        ws?.close(); // no more upgrades; does not touch open sockets
        const socketsClosed = Promise.all(
          sockets.map((s) => new Promise<void>((r) => (s.readyState === s.CLOSED ? r() : s.once('close', () => r())))),
        );
        for (const s of sockets) s.close(GOING_AWAY, 'server shutting down');
        for (const res of inflight) {
          if (!res.headersSent)
            res.shouldKeepAlive = false; // answered with `Connection: close`, then the connection ends
          else res.once('close', () => server.closeIdleConnections());
        }
        server.closeIdleConnections();
        logger.info({ inflight: inflight.size, sockets: sockets.length, graceMs }, 'api draining');

        let cutSockets = 0;
        if (!(await within(socketsClosed, deadline - Date.now()))) {
          const open = sockets.filter((s) => s.readyState !== s.CLOSED);
          cutSockets = open.length;
          for (const s of open) s.terminate();
        }
        let cutRequests = 0;
        if (!(await within(closed, deadline - Date.now()))) {
          cutRequests = inflight.size;
          server.closeAllConnections();
          await closed;
        }
        const forced = cutSockets + cutRequests > 0;
        if (forced)
          logger.warn({ cutRequests, cutSockets, graceMs }, 'api shutdown grace over: remaining connections cut');
        return { forced, cutRequests, cutSockets };
      })();
      return draining;
    },
  };
}
