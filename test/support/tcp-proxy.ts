/**
 * A TCP forwarder in front of a real dependency (PostgreSQL, the Temporal frontend), so a test can make
 * that dependency unreachable for one process and back again without stopping the shared server:
 * `cut()` drops every forwarded connection and stops listening (new connections are refused), `restore()`
 * listens on the same port again.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  /** `127.0.0.1:<port>`, the address to give the process instead of the target's. */
  address: string;
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts forwarding a free loopback port to `target` (`host:port`). */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => (sockets.add(s), s.once('close', () => sockets.delete(s)));
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    track(client);
    track(upstream);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const)
      a.on('error', () => b.destroy()).on('close', () => b.destroy());
    client.pipe(upstream).pipe(client);
  });
  const listen = (p: number) =>
    new Promise<void>((resolve, reject) =>
      server.once('error', reject).listen(p, '127.0.0.1', () => (server.off('error', reject), resolve())),
    );
  await listen(0);
  const own = (server.address() as AddressInfo).port;
  const cut = async () => {
    const closed = new Promise<void>((r) => server.close(() => r()));
    for (const s of sockets) s.destroy();
    await closed;
  };
  return {
    address: `127.0.0.1:${own}`,
    port: own,
    cut,
    restore: () => listen(own),
    stop: async () => (server.listening ? cut() : undefined),
  };
}
