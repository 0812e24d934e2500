/**
 * The one way a webhook delivery reaches its receiver (docs/api.md §6.4): a `POST` over node:http(s)
 * that connects only to an address it has checked. Unless private targets are allowed
 * (`WEBHOOK_ALLOW_PRIVATE`), an IP literal host is checked before connecting, and a host name is
 * resolved once (every address, `dns.lookup` with `all: true`), every address is checked with
 * domain/webhooks/target.ts, and the socket connects to one of those same addresses (the `lookup`
 * hook of the connection), so a name that resolves, or rebinds between two lookups, to a loopback,
 * private, link-local, multicast, unspecified or reserved address is never reached. The URL's host
 * stays the `Host` header and the TLS server name (SNI and certificate check). No redirect is
 * followed, no connection is reused, no proxy is used.
 *
 * A failure is reported as a short class ({@link deliveryErrorClass}), never the error's message:
 * the deliveries list shows it to the tenant, and a message (`connect ECONNREFUSED 10.0.0.5:5432`)
 * would make it a port scanner.
 */
import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { context, propagation } from '@opentelemetry/api';
import { forbiddenAddressRange } from '../../../domain/webhooks/target.js';

/** Resolves a host name to all its addresses (default: `dns.lookup` with `all: true`, in the resolver's order). */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (hostname) => dns.lookup(hostname, { all: true, order: 'verbatim' });

/** A target refused at connect time: `host` (name or literal) is, or resolved to, `address` of range `range`. */
export class ForbiddenTargetError extends Error {
  readonly code = 'EFORBIDDEN_TARGET';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(`webhook target ${host} is ${address} (${range}): refused unless WEBHOOK_ALLOW_PRIVATE=true`);
    this.name = 'ForbiddenTargetError';
  }
}

/**
 * The connection's `lookup` hook: resolves `hostname` once with `resolve`, refuses it (ForbiddenTargetError)
 * when any of its addresses is not public unless `allowPrivate`, and answers those addresses (all of
 * them, or the first, as the socket asks), so the socket connects to a checked address.
 */
function checkedLookup(resolve: Resolve, allowPrivate: boolean): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    const checked = async () => {
      const found = (await resolve(hostname)).filter((a) => !options.family || a.family === options.family);
      if (!found.length) throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND', hostname });
      for (const a of found) {
        const range = allowPrivate ? null : forbiddenAddressRange(a.address);
        if (range) throw new ForbiddenTargetError(hostname, a.address, range);
      }
      return found;
    };
    checked().then(
      (found) => (options.all ? callback(null, found) : callback(null, found[0].address, found[0].family)),
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

/** One delivery request: the receiver `url`, headers and body, the time allowed for an answer (ms), and whether non-public targets are allowed. */
export interface ReceiverRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
  /** DNS for host names (tests); default: the system resolver. */
  resolve?: Resolve;
}

/**
 * POSTs `body` to the receiver as the module doc says and answers its HTTP status once the status
 * line arrives (the response body is not read). The active trace context, if any, is propagated
 * (`traceparent`).
 * @throws ForbiddenTargetError for a refused target (nothing is sent), the network or TLS error, or an
 *   `AbortError` when no answer came within `timeoutMs`; {@link deliveryErrorClass} names each.
 */
export function postToReceiver(r: ReceiverRequest): Promise<number> {
  const url = new URL(r.url);
  const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const range = !r.allowPrivate && isIP(literal) ? forbiddenAddressRange(literal) : null;
  if (range) return Promise.reject(new ForbiddenTargetError(literal, literal, range));
  const headers: Record<string, string> = { ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) };
  propagation.inject(context.active(), headers);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: 'POST',
        headers,
        agent: false,
        lookup: checkedLookup(r.resolve ?? systemResolve, r.allowPrivate),
        signal: AbortSignal.timeout(r.timeoutMs),
      },
      (res) => {
        resolve(res.statusCode ?? 0);
        res.destroy();
      },
    );
    req.on('error', reject);
    req.end(r.body);
  });
}

/** Error codes by the class {@link deliveryErrorClass} gives them. */
const CLASSES: Record<string, string[]> = {
  timeout: ['ABORT_ERR', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT'],
  connect_refused: ['ECONNREFUSED'],
  connect_reset: ['ECONNRESET', 'EPIPE', 'ECONNABORTED'],
  unreachable: ['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL'],
  dns: ['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'ENODATA', 'ESERVFAIL', 'EREFUSED'],
  tls: ['EPROTO'],
};
const CLASS_OF = new Map(Object.entries(CLASSES).flatMap(([cls, codes]) => codes.map((c) => [c, cls] as const)));

/**
 * The short class of a failed delivery attempt's error, as the deliveries list shows it:
 * `forbidden_target` (refused before connecting), `timeout`, `connect_refused`, `connect_reset`,
 * `unreachable`, `dns`, `tls` (handshake or certificate), `bad_response` (not HTTP), else `network`.
 * (A non-2xx answer is `http_<status>`, set by the caller.)
 */
export function deliveryErrorClass(err: unknown): string {
  if (err instanceof ForbiddenTargetError) return 'forbidden_target';
  const { name, code } = (err ?? {}) as { name?: string; code?: string };
  if (name === 'AbortError' || name === 'TimeoutError') return 'timeout';
  const known = code ? CLASS_OF.get(code) : undefined;
  if (known) return known;
  if (code && /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/.test(code))
    return 'tls';
  if (code?.startsWith('HPE_')) return 'bad_response';
  return 'network';
}
