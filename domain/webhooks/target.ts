/**
 * Which webhook targets point at the platform's own host (README "Configuration checks",
 * `WEBHOOK_ALLOW_LOOPBACK`): loopback only. Host names are not resolved, so a public name whose DNS
 * answers 127.0.0.1 is not caught here; private networks and DNS are the later SSRF work.
 */
import { BlockList, isIP } from 'node:net';

/** Loopback and "this host" addresses: 127.0.0.0/8, 0.0.0.0/8, ::1, :: (IPv4-mapped IPv6 forms match their IPv4 rule). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addSubnet('0.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addAddress('::', 'ipv6');

/**
 * The loopback host `url` targets (e.g. `127.0.0.1`, `::1`, `localhost`), or null when it targets
 * another host. Every spelling the WHATWG URL parser normalises counts (`http://127.1/`,
 * `http://2130706433/`, `http://[::ffff:127.0.0.1]/`); names: `localhost` and `*.localhost`
 * (RFC 6761), with or without the trailing dot.
 * @throws TypeError when `url` is not a URL (callers validate it first).
 */
export function loopbackHost(url: string): string | null {
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  const family = isIP(host);
  if (family) return LOOPBACK.check(host, family === 6 ? 'ipv6' : 'ipv4') ? host : null;
  return host === 'localhost' || host.endsWith('.localhost') ? host : null;
}
