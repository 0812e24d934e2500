/**
 * The page's WebSocket channels (docs/api.md §6): `/ws/quotes` (marks), `/ws/market` (candles) and
 * `/ws/risk` (working orders, positions, fills). Each connection pings every 30 s (the server
 * closes after 60 s of silence, docs/api.md §6.3 rule 5) and reconnects with backoff from 500 ms
 * doubling to 10 s; on every (re)connect `onOpen` runs again, because topics live on the
 * connection (rule 1).
 */

/** A server frame: `{ type, ... }`. */
export type Frame = { type: string; [k: string]: unknown };

/** The ws(s) URL of a channel on this host. */
export const channelUrl = (path: string) =>
  `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${path}`;

/**
 * Keeps one channel open until the returned `close()` is called.
 * `onOpen(send)`: authenticate and subscribe (may be async: a fresh bootstrap for `/ws/risk`).
 * `onFrame(frame, send)`: every frame; `onStatus`: `connecting`, `open` or `closed`.
 */
export function keepChannel(
  path: string,
  handlers: {
    onOpen(send: (f: Frame) => void): void | Promise<void>;
    onFrame(f: Frame, send: (f: Frame) => void): void;
    onStatus?(s: 'connecting' | 'open' | 'closed'): void;
  },
): { close(): void } {
  let ws: WebSocket | undefined;
  let stopped = false;
  let delayMs = 500;
  let ping: ReturnType<typeof setInterval> | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const connect = () => {
    handlers.onStatus?.('connecting');
    const socket = new WebSocket(channelUrl(path));
    ws = socket;
    const send = (f: Frame) => socket.readyState === WebSocket.OPEN && socket.send(JSON.stringify(f));
    socket.onopen = () => {
      delayMs = 500;
      handlers.onStatus?.('open');
      ping = setInterval(() => send({ type: 'Ping' }), 30_000);
      Promise.resolve(handlers.onOpen(send)).catch(() => socket.close());
    };
    socket.onmessage = (e) => {
      try {
        handlers.onFrame(JSON.parse(String(e.data)) as Frame, send);
      } catch {
        /* a frame that is not JSON is not ours to show */
      }
    };
    socket.onclose = () => {
      clearInterval(ping);
      handlers.onStatus?.('closed');
      if (stopped) return;
      retry = setTimeout(connect, delayMs);
      delayMs = Math.min(delayMs * 2, 10_000);
    };
  };
  connect();
  return {
    close() {
      stopped = true;
      clearTimeout(retry);
      clearInterval(ping);
      ws?.close();
    },
  };
}
