import { describe, expect, it } from 'vitest';
import { addressPhrase, classifyAddress, dialAddress } from './classify-address.ts';

/** Every refused class, IPv4 and IPv6, by classification only: nothing here opens a socket. */
const REFUSED: [string, RegExp][] = [
  // IPv4
  ['0.0.0.0', /unspecified/],
  ['0.1.2.3', /unspecified/],
  ['127.0.0.1', /loopback/],
  ['127.255.255.254', /loopback/],
  ['10.0.0.1', /private/],
  ['172.16.0.1', /private/],
  ['172.31.255.255', /private/],
  ['192.168.1.1', /private/],
  ['100.64.0.1', /carrier-grade NAT/],
  ['100.127.255.254', /carrier-grade NAT/],
  ['169.254.169.254', /link-local/],
  ['224.0.0.1', /multicast/],
  ['239.255.255.250', /multicast/],
  ['255.255.255.255', /broadcast/],
  ['240.0.0.1', /reserved/],
  ['192.0.0.8', /reserved/],
  ['192.0.2.10', /documentation/],
  ['198.51.100.7', /documentation/],
  ['203.0.113.99', /documentation/],
  ['198.18.0.1', /benchmarking/],
  ['198.19.255.1', /benchmarking/],
  ['192.88.99.1', /reserved/],
  // IPv6
  ['::', /unspecified/],
  ['::1', /loopback/],
  ['fe80::1', /link-local/],
  ['febf:ffff::1', /link-local/],
  ['fec0::1', /site-local/],
  ['fc00::1', /unique local/],
  ['fd12:3456:789a::1', /unique local/],
  ['ff02::1', /multicast/],
  ['2001:db8::1', /documentation/],
  ['3fff::1', /documentation/],
  ['2001:2::1', /benchmarking/],
  ['100::1', /discard/],
  ['64:ff9b:1::a00:1', /local-use NAT64/],
  ['2001:10::1', /ORCHID/],
  ['2001:100::1', /reserved/],
  ['4000::1', /outside global unicast/],
  ['fe80::1%eth0', /zone id/],
  // IPv6 forms that carry a refused IPv4 address
  ['::ffff:127.0.0.1', /loopback IPv4 127\.0\.0\.1 inside an IPv4-mapped/],
  ['::ffff:7f00:1', /loopback IPv4 127\.0\.0\.1 inside an IPv4-mapped/],
  ['::ffff:10.1.2.3', /private .* inside an IPv4-mapped/],
  ['::ffff:169.254.169.254', /link-local IPv4 169\.254\.169\.254/],
  ['::ffff:0:192.168.0.1', /private .* inside an IPv4-translated/],
  ['::127.0.0.1', /loopback IPv4 127\.0\.0\.1 inside an IPv4-compatible/],
  ['::8.8.8.8', /deprecated IPv4-compatible/],
  ['64:ff9b::127.0.0.1', /loopback IPv4 127\.0\.0\.1 inside a NAT64/],
  ['64:ff9b::a9fe:a9fe', /link-local IPv4 169\.254\.169\.254 inside a NAT64/],
  ['2002:7f00:1::1', /loopback IPv4 127\.0\.0\.1 inside a 6to4/],
  ['2002:c0a8:101::1', /private \(RFC 1918\) IPv4 192\.168\.1\.1 inside a 6to4/],
  // Teredo: server 10.0.0.1 (private); client 127.0.0.1 stored inverted as 80ff:fffe.
  ['2001:0:a00:1::1', /private \(RFC 1918\) IPv4 10\.0\.0\.1 inside a Teredo/],
  ['2001:0:808:808::80ff:fffe', /loopback IPv4 127\.0\.0\.1 inside a Teredo/],
  // Not addresses at all (the URL parser turns 0x7f.1 and 2130706433 into dotted quads first).
  ['localhost', /not an IP address/],
  ['0x7f.1', /not an IP address/],
  ['2130706433', /not an IP address/],
  ['', /not an IP address/],
];

const ALLOWED = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '100.63.255.255', // just below CGNAT
  '100.128.0.0', // just above CGNAT
  '172.15.255.255', // just below 172.16/12
  '172.32.0.0', // just above
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '[2606:4700:4700::1111]',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808', // NAT64 of 8.8.8.8
  '2002:808:808::1', // 6to4 of 8.8.8.8
  '2001:0:808:808::f7f7:f7f7', // Teredo: server 8.8.8.8, client 8.8.8.8
];

describe('classifyAddress', () => {
  it.each(REFUSED)('refuses %s', (ip, reason) => {
    const verdict = classifyAddress(ip);
    expect(verdict.allowed).toBe(false);
    expect(verdict.allowed ? '' : verdict.reason).toMatch(reason);
  });

  it.each(ALLOWED)('allows the public address %s', (ip) => {
    expect(classifyAddress(ip)).toEqual({ allowed: true });
  });
});

describe('dialAddress', () => {
  it('dials an IPv4-mapped address as its IPv4 and keeps others as they are', () => {
    expect(dialAddress('::ffff:8.8.8.8')).toEqual({ address: '8.8.8.8', family: 4 });
    expect(dialAddress('2606:4700:4700::1111')).toEqual({ address: '2606:4700:4700::1111', family: 6 });
    expect(dialAddress('1.1.1.1')).toEqual({ address: '1.1.1.1', family: 4 });
  });
});

describe('addressPhrase', () => {
  it('names the class with its article and one "address"', () => {
    const phrase = (ip: string) => {
      const verdict = classifyAddress(ip);
      if (verdict.allowed) throw new Error(`${ip} is allowed`);
      return addressPhrase(verdict.reason);
    };
    expect(phrase('127.0.0.1')).toBe('a loopback address');
    expect(phrase('0.0.0.0')).toBe('an unspecified ("this network") address');
    expect(phrase('::ffff:127.0.0.1')).toBe('a loopback IPv4 127.0.0.1 inside an IPv4-mapped IPv6 address');
    expect(phrase('64:ff9b::a01:203')).toBe(
      'a private (RFC 1918) IPv4 10.1.2.3 inside a NAT64 address (64:ff9b::/96)',
    );
    expect(phrase('fc00::1')).toBe('a unique local (private) address');
    expect(phrase('fe80::1')).toBe('a link-local address');
  });
});
