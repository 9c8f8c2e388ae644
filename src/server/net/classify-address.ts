import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses the egress guard may dial (docs/decisions/0060-egress-guard.md). Pure, no I/O.
 * A public unicast address is allowed; every address that reaches this machine, its networks, or
 * nothing routable on the internet is refused, and so is every IPv6 form that carries such an IPv4
 * address inside it (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo).
 */

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

/** IPv4 ranges, most specific first, each with the words a finding shows. */
const IPV4_REFUSED: [string, string][] = [
  ['255.255.255.255/32', 'broadcast'],
  ['0.0.0.0/8', 'unspecified ("this network")'],
  ['127.0.0.0/8', 'loopback'],
  ['10.0.0.0/8', 'private (RFC 1918)'],
  ['172.16.0.0/12', 'private (RFC 1918)'],
  ['192.168.0.0/16', 'private (RFC 1918)'],
  ['100.64.0.0/10', 'carrier-grade NAT (shared address space)'],
  ['169.254.0.0/16', 'link-local'],
  ['192.0.0.0/24', 'reserved (IETF protocol assignments)'],
  ['192.0.2.0/24', 'documentation'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['198.18.0.0/15', 'benchmarking'],
  ['192.88.99.0/24', 'reserved (6to4 relay anycast)'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
];

/** IPv6 ranges that are refused outright (the embedded-IPv4 forms are handled before these). */
const IPV6_REFUSED: [string, string][] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b:1::/48', 'local-use NAT64'],
  ['100::/64', 'discard-only'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation'],
  ['2001:10::/28', 'reserved (ORCHID)'],
  ['2001:20::/28', 'reserved (ORCHIDv2)'],
  ['2001::/23', 'reserved (IETF protocol assignments)'],
  ['5f00::/16', 'segment routing'],
  ['fc00::/7', 'unique local (private)'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

const parsedV4 = IPV4_REFUSED.map(([cidr, reason]) => [ipaddr.IPv4.parseCIDR(cidr), reason] as const);
const parsedV6 = IPV6_REFUSED.map(([cidr, reason]) => [ipaddr.IPv6.parseCIDR(cidr), reason] as const);
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

const refused = (reason: string): AddressVerdict => ({ allowed: false, reason });

/**
 * A refused address's class as a phrase a message can use: "a loopback address", "an unspecified
 * ("this network") address", "a loopback IPv4 127.0.0.1 inside an IPv4-mapped IPv6 address" (a
 * class that already names its address is not given another).
 */
export function addressPhrase(reason: string): string {
  const noun = / address(?: \([^)]*\))?$/.test(reason) ? reason : `${reason} address`;
  return `${/^(?:[aeio]|un(?!ique)|IPv)/i.test(noun) ? 'an' : 'a'} ${noun}`;
}

function v4FromWords(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

function classifyV4(ip: ipaddr.IPv4): AddressVerdict {
  for (const [range, reason] of parsedV4) if (ip.match(range)) return refused(reason);
  // ipaddr.js's own table as a second opinion: anything it does not call unicast stays refused.
  const range = ip.range();
  if (range !== 'unicast') return refused(`special-purpose (${range})`);
  return { allowed: true };
}

/** An IPv6 form that carries an IPv4 address: that address decides. */
function embedded(form: string, v4: ipaddr.IPv4): AddressVerdict {
  const inner = classifyV4(v4);
  return inner.allowed ? inner : refused(`${inner.reason} IPv4 ${v4.toString()} inside ${form}`);
}

function classifyV6(ip: ipaddr.IPv6): AddressVerdict {
  const p = ip.parts as [number, number, number, number, number, number, number, number];
  const first5Zero = p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0;
  if (first5Zero && p[5] === 0xffff) return embedded('an IPv4-mapped IPv6 address', v4FromWords(p[6], p[7]));
  if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0xffff && p[5] === 0) {
    return embedded('an IPv4-translated IPv6 address', v4FromWords(p[6], p[7]));
  }
  if (first5Zero && p[5] === 0 && (p[6] !== 0 || p[7] > 1)) {
    // ::a.b.c.d, deprecated (RFC 4291 §2.5.5.1): never a public destination, whatever it carries.
    const inner = embedded('an IPv4-compatible IPv6 address', v4FromWords(p[6], p[7]));
    return inner.allowed ? refused('deprecated IPv4-compatible IPv6') : inner;
  }
  if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0) {
    return embedded('a NAT64 address (64:ff9b::/96)', v4FromWords(p[6], p[7]));
  }
  if (p[0] === 0x2002) return embedded('a 6to4 address (2002::/16)', v4FromWords(p[1], p[2]));
  if (p[0] === 0x2001 && p[1] === 0) {
    // Teredo: the server's IPv4 in words 2-3, the client's (inverted) in words 6-7; both must pass.
    const server = embedded('a Teredo address (2001::/32)', v4FromWords(p[2], p[3]));
    if (!server.allowed) return server;
    return embedded('a Teredo address (2001::/32)', v4FromWords(p[6] ^ 0xffff, p[7] ^ 0xffff));
  }
  for (const [range, reason] of parsedV6) if (ip.match(range)) return refused(reason);
  if (!ip.match(GLOBAL_UNICAST_V6)) return refused('reserved (outside global unicast 2000::/3)');
  const range = ip.range();
  if (range !== 'unicast') return refused(`special-purpose (${range})`);
  return { allowed: true };
}

/**
 * Whether the egress guard may connect to `ip`, a textual IPv4 or IPv6 address as DNS answers it or
 * a URL's host holds it (brackets allowed). Anything that is not a plain address is refused: the
 * lenient forms (`0x7f.1`, `2130706433`) are turned into dotted quads by the URL parser before
 * they get here.
 */
export function classifyAddress(ip: string): AddressVerdict {
  const parsed = parseIp(ip);
  if (parsed === 'zone') return refused('link-scoped (zone id)');
  if (!parsed) return refused('not an IP address');
  return parsed.kind() === 'ipv4' ? classifyV4(parsed as ipaddr.IPv4) : classifyV6(parsed as ipaddr.IPv6);
}

/**
 * A plain IPv4 or IPv6 address (brackets allowed), parsed. IPv6 text goes through the URL parser
 * first: ipaddr.js reads `::127.0.0.1` (IPv4-compatible, as glibc prints ::7f00:1) as IPv4-mapped.
 */
export function parseIp(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | 'zone' | undefined {
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const family = isIP(text);
  if (family === 4) return ipaddr.IPv4.parse(text);
  if (family !== 6) return undefined;
  if (text.includes('%')) return 'zone';
  const canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  return ipaddr.IPv6.parse(canonical);
}

/** The address to dial for an allowed one: an IPv4-mapped IPv6 address is dialled as its IPv4. */
export function dialAddress(ip: string): { address: string; family: 4 | 6 } {
  const parsed = parseIp(ip);
  if (!parsed || parsed === 'zone') throw new Error(`not a dialable address: ${ip}`);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return { address: (parsed as ipaddr.IPv6).toIPv4Address().toString(), family: 4 };
  }
  return { address: parsed.toString(), family: parsed.kind() === 'ipv4' ? 4 : 6 };
}
