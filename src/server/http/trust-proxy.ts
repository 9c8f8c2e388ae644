import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../config.ts';
import { isLoopbackHostname } from './loopback.ts';

/**
 * TRUST_PROXY as Fastify's trustProxy (docs/decisions/0030-trust-proxy-hops-or-addresses.md).
 * request.ip is then the first address, counted from the TCP peer towards the client, that is
 * not a trusted proxy: the entry the nearest untrusted hop appended, never the left-most one,
 * which the client writes.
 *
 * A hop count trusts the last N hops whoever they are. Fastify 5.12 refuses a bare number
 * (it cannot check the peer), so it is spelled out here as a function; it is safe only when
 * clients cannot reach the app except through those proxies (see trustProxyWarning).
 */
export function trustProxyOption(trust: Config['trustProxy']): FastifyServerOptions['trustProxy'] {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address: string, hop: number) => hop < trust;
  return trust;
}

/** A start-up warning when a hop count is set but clients may connect to the app directly. */
export function trustProxyWarning(config: Pick<Config, 'trustProxy' | 'host'>): string | undefined {
  if (typeof config.trustProxy !== 'number') return undefined;
  if (isLoopbackHostname(config.host)) return undefined;
  return (
    `TRUST_PROXY=${config.trustProxy} trusts the last ${config.trustProxy} X-Forwarded-For hop(s) from ` +
    `any peer, and HOST=${config.host} lets clients connect directly and forge them: list the proxy ` +
    'addresses in TRUST_PROXY instead, or listen on 127.0.0.1 behind the proxy'
  );
}
