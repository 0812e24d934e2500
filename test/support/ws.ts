/**
 * A WebSocket test client (`/ws/risk`, `/ws/quotes`, `/ws/market`) that buffers every frame and waits for the ones
 * a test needs. Every frame received is checked against the AsyncAPI document (test/support/contract.ts).
 */
import WebSocket from 'ws';
import type { Stack } from './stack.js';
import { checkFrame, ContractViolation } from './contract.js';

export interface RiskClient {
  /** The frames received that the AsyncAPI document describes, in order. */
  frames: any[];
  send(msg: unknown): void;
  /**
   * Resolves with the first buffered or future frame matching `pred` (10 s); rejects with the contract violation
   * once a frame received is not one the AsyncAPI document describes.
   */
  next(pred: (f: any) => boolean, timeoutMs?: number): Promise<any>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

/**
 * Opens a raw socket at `wsUrl` (any channel; its path names the channel whose frames are checked) with upgrade
 * `headers` (no handshake frames sent). A frame the AsyncAPI document does not describe is kept out of `frames`,
 * rejects every waiter and later `next()`, and is thrown (an uncaught error fails the run) so no test passes over it.
 */
export async function openRisk(wsUrl: string, headers: Record<string, string>): Promise<RiskClient> {
  const ws = new WebSocket(wsUrl, { headers });
  const channel = new URL(wsUrl).pathname;
  const frames: any[] = [];
  const waiters: { pred: (f: any) => boolean; resolve: (f: any) => void; reject: (err: Error) => void }[] = [];
  let violation: ContractViolation | undefined;
  ws.on('message', (raw) => {
    const f = JSON.parse(String(raw));
    try {
      checkFrame(channel, f);
    } catch (err) {
      if (!(err instanceof ContractViolation)) throw err;
      const first = !violation;
      violation ??= err;
      waiters.splice(0).forEach((w) => w.reject(err));
      if (first) throw err;
      return;
    }
    frames.push(f);
    for (const w of [...waiters]) {
      if (!w.pred(f)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(f);
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((r) =>
    ws.on('close', (code, reason) => r({ code, reason: String(reason) })),
  );
  await new Promise<void>((resolve, reject) => (ws.once('open', () => resolve()), ws.once('error', reject)));
  return {
    frames,
    closed,
    send: (msg) => ws.send(JSON.stringify(msg)),
    next(pred, timeoutMs = 10_000) {
      if (violation) return Promise.reject(violation);
      const hit = frames.find(pred);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`no matching frame in ${timeoutMs} ms; got ${JSON.stringify(frames)}`)),
          timeoutMs,
        );
        waiters.push({
          pred,
          resolve: (f) => (clearTimeout(t), resolve(f)),
          reject: (err) => (clearTimeout(t), reject(err)),
        });
      });
    },
    close: () => ws.close(),
  };
}

/**
 * A `/ws/risk` socket of the trader holding `token`, ready for updates: the bootstrap's endpoint (or
 * `endpoint`, e.g. another api process of the stack), `Authenticate` answered by `Authenticated`, then, when
 * `topics` are given, `Subscribe` to them answered by a `Result`. The frames of the handshake stay buffered.
 */
export async function riskSocket(
  s: Stack,
  token: string,
  o: { topics?: string[]; endpoint?: string } = {},
): Promise<RiskClient> {
  const hs = (await s.call('POST', '/api/auth/bootstrap', { token })).body.data.riskEngineWss;
  const ws = await openRisk(o.endpoint ?? hs.endpoint, { 'x-tenant-slug': s.tenant.slug });
  ws.send({ type: 'Authenticate', token: hs.token });
  await ws.next((f) => f.type === 'Authenticated');
  if (o.topics) {
    ws.send({ type: 'Subscribe', topics: o.topics });
    await ws.next((f) => f.type === 'Result');
  }
  return ws;
}
