/**
 * Which webhook targets are refused (docs/api.md §6.4, README "Configuration" `WEBHOOK_ALLOW_PRIVATE`):
 * every address that is not public unicast, so that a tenant cannot make the worker reach the
 * platform's own host, its private network or the cloud metadata service (SSRF). Checked twice: on
 * the URL when an endpoint is registered ({@link forbiddenUrlTarget}), and on every address its host
 * name resolves to when a delivery connects (modules/webhooks/activities/receiver.ts, with
 * {@link forbiddenAddressRange}), so a name that resolves, or later rebinds, to such an address is
 * refused too.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The NAT64 well-known prefix 64:ff9b::/96 (RFC 6052): its last 32 bits are an IPv4 address. */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * Why `address` (an IPv4 or IPv6 address, canonical or not) is refused as a webhook target: its
 * ipaddr.js range name — `loopback`, `private`, `linkLocal`, `uniqueLocal`, `multicast`,
 * `unspecified`, `broadcast`, `carrierGradeNat`, `reserved`, `6to4`, `teredo`, … — or null for a
 * public unicast address. An IPv6 address that carries an IPv4 one (IPv4-mapped `::ffff:a.b.c.d`,
 * NAT64 `64:ff9b::a.b.c.d`) is judged by that IPv4 address; the deprecated IPv4-compatible
 * `::a.b.c.d` is refused as `ipv4Compatible`.
 * @throws Error when `address` is not an IP address.
 */
export function forbiddenAddressRange(address: string): string | null {
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4') return unicastOrRange(ip.range());
  const v6 = ip as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return unicastOrRange(v6.toIPv4Address().range());
  if (v6.match(NAT64_WELL_KNOWN)) return unicastOrRange(ipaddr.fromByteArray(v6.toByteArray().slice(12)).range());
  const range = v6.range();
  if (range === 'unicast' && v6.parts.slice(0, 6).every((p) => p === 0)) return 'ipv4Compatible';
  return unicastOrRange(range);
}

const unicastOrRange = (range: string) => (range === 'unicast' ? null : range);

/** A refused webhook target: its host as the URL names it (IPv6 without brackets) and why ({@link forbiddenAddressRange}). */
export interface ForbiddenTarget {
  host: string;
  range: string;
}

/**
 * The refused host of `url`, or null. An IP literal counts in every spelling the WHATWG URL parser
 * normalises (`http://2130706433/`, `http://0x7f.1/`, `http://0177.0.0.1/` are 127.0.0.1;
 * `http://[::ffff:127.0.0.1]/` is `::ffff:7f00:1`) and is judged by {@link forbiddenAddressRange};
 * the names `localhost` and `*.localhost` (RFC 6761, with or without the trailing dot) are
 * `loopback`. Other names are not resolved here: the delivery checks what they resolve to.
 * @throws TypeError when `url` is not a URL (callers validate it first).
 */
export function forbiddenUrlTarget(url: string): ForbiddenTarget | null {
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) {
    const range = forbiddenAddressRange(host);
    return range ? { host, range } : null;
  }
  const name = host.replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') ? { host: name, range: 'loopback' } : null;
}
