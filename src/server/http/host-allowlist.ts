import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { AppError } from './errors.ts';
import { isLoopbackHostname } from './loopback.ts';

/**
 * Every request must name us: the Host of PUBLIC_URL, or, when PUBLIC_URL is a loopback address,
 * `localhost`, `127.0.0.1` or `[::1]` with its port or the port the app listens on (PORT).
 * Anything else (a DNS-rebinding page that
 * points its own name at 127.0.0.1, a scanner, a misrouted virtual host) gets 421 before any
 * route, session lookup or static file runs (docs/decisions/0031-host-allowlist.md).
 *
 * Behind a proxy the Host is the proxy's to pass on: Fastify's request.host reads
 * X-Forwarded-Host only from a trusted proxy (TRUST_PROXY), else the Host header.
 */

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** The `Host` values (lower case) a request may carry. */
export function allowedHosts(publicUrl: string, listenPort: number): Set<string> {
  const url = new URL(publicUrl);
  const defaultPort = url.protocol === 'https:' ? '443' : '80';
  const port = url.port || defaultPort;
  const hosts = new Set<string>();
  const add = (name: string, p: string) => {
    hosts.add(`${name}:${p}`.toLowerCase());
    if (p === defaultPort) hosts.add(name.toLowerCase());
  };
  add(url.hostname, port);
  if (isLoopbackHostname(url.hostname)) {
    for (const name of LOOPBACK_NAMES) for (const p of [port, String(listenPort)]) add(name, p);
  }
  return hosts;
}

export const MISDIRECTED_MESSAGE = 'This server does not answer for that host name';

export function registerHostAllowlist(app: FastifyInstance, config: Config): void {
  // Worked out at the first request, once the server listens: with PORT=0 the system picks the
  // port, and a PUBLIC_URL derived from it is only known then (src/server/main.ts).
  let hosts: Set<string> | undefined;
  app.addHook('onRequest', (request, _reply, done) => {
    if (!hosts) {
      // Once, at the first request: the port is known only after listen (PORT=0).
      const address = app.server.address();
      hosts = allowedHosts(
        config.publicUrl,
        typeof address === 'object' && address ? address.port : config.port,
      );
    }
    const host = request.host?.toLowerCase();
    if (host !== undefined && hosts.has(host)) return done();
    done(new AppError(421, MISDIRECTED_MESSAGE, 'misdirected_request'));
  });
}
