import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * An HTTP(S) server on 127.0.0.1 for the egress guard's tests and the link-check bench
 * (src/server/net/egress.ts). It counts connections and requests, so a test can prove what was
 * (and was not) contacted.
 */
export interface LoopbackServer {
  port: number;
  /** http(s)://127.0.0.1:port */
  url: string;
  /** Every request seen, in order: method, path and Host header. */
  requests: { method: string; path: string; host: string | undefined; servername?: string }[];
  connections: number;
  /** Sockets closed by the peer or by us. */
  closedSockets: number;
  /** Requests being handled right now, and the most at once. */
  inFlight: number;
  maxInFlight: number;
  close(): Promise<void>;
}

export type LoopbackHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

export async function startLoopbackServer(
  handler: LoopbackHandler,
  tlsOptions?: { key: string; cert: string },
): Promise<LoopbackServer> {
  const sockets = new Set<Socket>();
  const state: Omit<LoopbackServer, 'port' | 'url' | 'close'> = {
    requests: [],
    connections: 0,
    closedSockets: 0,
    inFlight: 0,
    maxInFlight: 0,
  };
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const servername = (req.socket as Socket & { servername?: string | false }).servername;
    state.requests.push({
      method: req.method ?? '',
      path: req.url ?? '',
      host: req.headers.host,
      ...(typeof servername === 'string' ? { servername } : {}),
    });
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      state.inFlight--;
    };
    res.once('close', finish);
    Promise.resolve(handler(req, res)).catch(() => res.destroy());
  };
  const server = tlsOptions ? https.createServer(tlsOptions, listener) : http.createServer(listener);
  server.on(tlsOptions ? 'secureConnection' : 'connection', (socket: Socket) => {
    state.connections++;
    sockets.add(socket);
    socket.once('close', () => {
      state.closedSockets++;
      sockets.delete(socket);
    });
  });
  // A failed TLS handshake is what some tests expect: keep it from becoming an unhandled error.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    port,
    url: `${tlsOptions ? 'https' : 'http'}://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  });
}

/** A self-signed certificate for `name` (openssl), for HTTPS tests through the egress guard's `ca`. */
export function selfSignedCert(name: string): { key: string; cert: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopback-tls-'));
  try {
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key,
        '-out', cert, '-days', '1', '-subj', `/CN=${name}`, '-addext', `subjectAltName=DNS:${name}`],
      { stdio: 'ignore' },
    ); // prettier-ignore
    return { key: fs.readFileSync(key, 'utf8'), cert: fs.readFileSync(cert, 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
