/**
 * What counts as "this machine": loopback addresses (for the TCP peer and the proxy-aware client
 * address) and loopback host names (for PUBLIC_URL and the Host header). Pure, no I/O.
 */

/** 127.0.0.0/8, ::1, and their IPv4-mapped forms. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.toLowerCase().replace(/^::ffff:/, '');
  return a === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

/** The host names of a URL that mean this machine: `localhost`, 127.0.0.0/8 and `[::1]`. */
export function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === 'localhost' || h === '[::1]' || isLoopbackAddress(h);
}
