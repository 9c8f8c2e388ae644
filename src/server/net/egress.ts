import dns from 'node:dns';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import net, { isIP } from 'node:net';
import tls from 'node:tls';
import ipaddr from 'ipaddr.js';
import {
  addressPhrase,
  classifyAddress,
  dialAddress,
  parseIp,
  type AddressVerdict,
} from './classify-address.ts';
import { EgressLimits } from './egress-limits.ts';

export { classifyAddress, type AddressVerdict } from './classify-address.ts';

/**
 * The one egress guard (docs/decisions/0060-egress-guard.md, docs/architecture.md "Egress guard"):
 * the only way the server fetches a URL it did not choose. Every hop is checked before any socket
 * opens: scheme http(s), no credentials, no port a browser refuses, and every DNS answer a public
 * address; then exactly the checked address is dialled (the host name only goes into the Host
 * header and the TLS server name), so there is no second lookup to rebind. Time, size, redirects,
 * a per-user rate and concurrency are capped.
 */

export type EgressErrorKind =
  | 'invalid-url'
  | 'refused-scheme'
  | 'refused-credentials'
  | 'refused-port'
  | 'refused-address'
  | 'dns'
  | 'timeout'
  | 'too-large'
  | 'too-many-redirects'
  | 'tls'
  | 'connection-refused'
  | 'connection'
  | 'rate-limited'
  | 'aborted';

/** A fetch that did not complete; `message` is a plain sentence fit for a finding. */
export class EgressError extends Error {
  constructor(
    readonly kind: EgressErrorKind,
    message: string,
    readonly detail: {
      url?: string;
      address?: string;
      addressClass?: string;
      /** For `dns`: ENOTFOUND when the name does not exist, else the resolver's code (a passing failure). */
      code?: string;
    } = {},
  ) {
    super(message);
    this.name = 'EgressError';
  }
}

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface DialEvent {
  hostname: string;
  address: string;
  port: number;
  tls: boolean;
}

export interface EgressOptions {
  /** DNS: every A and AAAA answer for a name. Default: the system resolver (getaddrinfo, all answers). */
  resolver?: Resolver;
  /**
   * Tests only: let 127.0.0.0/8 and ::1 through, so tests and the bench drive loopback servers.
   * From configuration only through EGRESS_ALLOW_LOOPBACK=1 with NODE_ENV=test (src/server/config.ts).
   */
  allowLoopback?: boolean;
  /** Called just before a socket is opened (tests spy on every dial). */
  onDial?: (event: DialEvent) => void;
  maxRedirects?: number;
  connectTimeoutMs?: number;
  /** From the request's start to the last byte read, redirects included. */
  totalTimeoutMs?: number;
  /** Body bytes read at most (per request, overridable per request). */
  maxBytes?: number;
  perUserPerMinute?: number;
  perUserConcurrency?: number;
  globalConcurrency?: number;
  now?: () => number;
  /** Extra trusted CAs for https (tests). */
  ca?: string | Buffer;
}

export interface EgressRequest {
  /** Whose request it is: the rate and the per-user concurrency are counted on it. */
  userId: string;
  method?: 'GET' | 'HEAD';
  signal?: AbortSignal;
  /** `discard`: the body is not read (the connection is closed after the headers). Default `read`. */
  body?: 'read' | 'discard';
  maxBytes?: number;
  /** Over maxBytes: `error` throws too-large, `truncate` returns what was read with `truncated`. */
  overflow?: 'error' | 'truncate';
  totalTimeoutMs?: number;
  connectTimeoutMs?: number;
}

export interface EgressHop {
  url: string;
  status: number;
}

export interface EgressResponse {
  /** The URL that answered (after redirects). */
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  /** Every hop that answered with a redirect, in order (empty when the first URL answered). */
  redirects: EgressHop[];
  /** The address dialled for the final hop. */
  address: string;
  /** The Content-Length header as a number, when present and valid. */
  contentLength: number | undefined;
  body: Buffer;
  /** Body bytes received (at most maxBytes + one chunk is ever read; `body` holds at most maxBytes). */
  bytesRead: number;
  /** True when the body went on beyond maxBytes and reading was stopped there. */
  truncated: boolean;
}

export interface Egress {
  fetch(url: string, request: EgressRequest): Promise<EgressResponse>;
  /** The verdict on one address under this guard's options (loopback allowance included). */
  check(ip: string): AddressVerdict;
}

/** Ports a browser refuses (the Fetch Standard's "bad port" list): never an HTTP server to check. */
const BAD_PORTS = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
  109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
  526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const LOOPBACK_V4 = ipaddr.IPv4.parseCIDR('127.0.0.0/8');

const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

function isLoopback(ip: string): boolean {
  const parsed = parseIp(ip);
  if (!parsed || parsed === 'zone') return false;
  const { address, family } = dialAddress(ip);
  return family === 4 ? ipaddr.IPv4.parse(address).match(LOOPBACK_V4) : address === '::1';
}

interface Target {
  url: URL;
  hostname: string;
  port: number;
  secure: boolean;
  address: string;
}

/** Node's socket and TLS errors in the guard's words. */
function classifyNetworkError(err: unknown, url: string): EgressError {
  if (err instanceof EgressError) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  const text = err instanceof Error ? err.message : String(err);
  if (code === 'ECONNREFUSED')
    return new EgressError('connection-refused', 'The server refused the connection.', { url });
  if (
    code.startsWith('ERR_TLS') ||
    code.startsWith('ERR_SSL') ||
    code.includes('CERT') ||
    code.startsWith('UNABLE_TO') ||
    code === 'HOSTNAME_MISMATCH' ||
    /certificate|ssl|tls/i.test(text)
  ) {
    return new EgressError('tls', `The secure connection failed (${code || text}).`, { url });
  }
  if (code === 'ETIMEDOUT') return new EgressError('timeout', 'The server took too long to answer.', { url });
  return new EgressError('connection', `The connection failed (${code || text}).`, { url });
}

export function createEgress(options: EgressOptions = {}): Egress {
  const resolver = options.resolver ?? systemResolver;
  const maxRedirects = options.maxRedirects ?? 5;
  const limits = new EgressLimits({
    perUserPerMinute: options.perUserPerMinute ?? 600,
    perUserConcurrency: options.perUserConcurrency ?? 8,
    globalConcurrency: options.globalConcurrency ?? 32,
    now: options.now ?? Date.now,
  });

  const check = (ip: string): AddressVerdict => {
    if (options.allowLoopback && isLoopback(ip)) return { allowed: true };
    return classifyAddress(ip);
  };

  async function resolve(hostname: string, url: string, signal: AbortSignal): Promise<string[]> {
    if (hostname.startsWith('[') && hostname.endsWith(']')) return [hostname.slice(1, -1)];
    if (isIP(hostname)) return [hostname];
    let answers: { address: string }[];
    try {
      answers = await new Promise((ok, fail) => {
        const onAbort = () => fail(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        resolver(hostname)
          .then(ok, fail)
          .finally(() => signal.removeEventListener('abort', onAbort));
      });
    } catch (err) {
      if (signal.aborted) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? '';
      const missing = code === 'ENOTFOUND' || code === 'ENODATA';
      throw new EgressError(
        'dns',
        missing
          ? `The domain ${hostname} does not exist.`
          : `The domain ${hostname} could not be looked up (${code || 'DNS error'}).`,
        { url, code: missing ? 'ENOTFOUND' : code || 'EDNS' },
      );
    }
    if (answers.length === 0) {
      throw new EgressError('dns', `The domain ${hostname} has no address.`, { url, code: 'ENOTFOUND' });
    }
    return answers.map((a) => a.address);
  }

  /** Every check of one hop, before any socket opens. */
  async function checkHop(url: URL, signal: AbortSignal): Promise<Target> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new EgressError(
        'refused-scheme',
        `Only http and https addresses are fetched (not ${url.protocol}).`,
        {
          url: url.href,
        },
      );
    }
    if (url.username || url.password) {
      throw new EgressError(
        'refused-credentials',
        'Addresses with a user name or password are not fetched.',
        {
          url: url.href,
        },
      );
    }
    const secure = url.protocol === 'https:';
    const port = url.port === '' ? (secure ? 443 : 80) : Number(url.port);
    if (BAD_PORTS.has(port)) {
      throw new EgressError('refused-port', `Port ${port} is not a web port; browsers refuse it too.`, {
        url: url.href,
      });
    }
    const answers = await resolve(url.hostname, url.href, signal);
    // Every answer must pass: a name that also points inside our network is refused as a whole.
    for (const answer of answers) {
      const verdict = check(answer);
      if (!verdict.allowed) {
        throw new EgressError(
          'refused-address',
          `${url.hostname} points to ${addressPhrase(verdict.reason)} (${answer}), which is never contacted from here.`,
          { url: url.href, address: answer, addressClass: verdict.reason },
        );
      }
    }
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    return { url, hostname, port, secure, address: dialAddress(answers[0]!).address };
  }

  function dial(t: Target, connectTimeoutMs: number): net.Socket {
    // The checked address, never a name: nothing between the check and the connection can change it.
    if (!isIP(t.address)) throw new EgressError('connection', 'Internal error: refusing to dial a name.');
    options.onDial?.({ hostname: t.hostname, address: t.address, port: t.port, tls: t.secure });
    const socket = t.secure
      ? tls.connect({
          host: t.address,
          port: t.port,
          servername: isIP(t.hostname) ? undefined : t.hostname,
          ALPNProtocols: ['http/1.1'],
          ...(options.ca ? { ca: options.ca } : {}),
        })
      : net.connect({ host: t.address, port: t.port });
    const timer = setTimeout(() => {
      socket.destroy(
        new EgressError('timeout', 'The server did not accept a connection in time.', { url: t.url.href }),
      );
    }, connectTimeoutMs);
    socket.once(t.secure ? 'secureConnect' : 'connect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
    return socket;
  }

  function requestHop(
    t: Target,
    method: 'GET' | 'HEAD',
    signal: AbortSignal,
    connectTimeoutMs: number,
  ): Promise<IncomingMessage> {
    return new Promise((resolveResponse, reject) => {
      let req: http.ClientRequest;
      try {
        req = http.request({
          host: t.hostname,
          port: t.port,
          method,
          path: `${t.url.pathname}${t.url.search}`,
          setHost: false,
          headers: {
            host: t.url.host,
            'user-agent': 'Proofmail link check',
            accept: '*/*',
            'accept-encoding': 'identity',
            connection: 'close',
          },
          createConnection: () => dial(t, connectTimeoutMs),
          signal,
        });
      } catch (err) {
        reject(classifyNetworkError(err, t.url.href));
        return;
      }
      req.once('response', resolveResponse);
      req.once('error', (err) =>
        reject(signal.aborted ? signal.reason : classifyNetworkError(err, t.url.href)),
      );
      req.end();
    });
  }

  async function readBody(
    res: IncomingMessage,
    maxBytes: number,
    overflow: 'error' | 'truncate',
    url: string,
  ): Promise<{ body: Buffer; bytesRead: number; truncated: boolean }> {
    const chunks: Buffer[] = [];
    let bytesRead = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
      bytesRead += chunk.length;
      if (bytesRead > maxBytes) {
        // Stop reading and cut the connection: the rest is never downloaded.
        res.destroy();
        if (overflow === 'error') {
          throw new EgressError('too-large', `The answer is larger than ${maxBytes} bytes.`, { url });
        }
        chunks.push(chunk.subarray(0, chunk.length - (bytesRead - maxBytes)));
        return { body: Buffer.concat(chunks), bytesRead, truncated: true };
      }
      chunks.push(chunk);
    }
    return { body: Buffer.concat(chunks), bytesRead, truncated: false };
  }

  async function fetchChecked(
    url: string,
    request: EgressRequest,
    signal: AbortSignal,
  ): Promise<EgressResponse> {
    let current: URL;
    try {
      current = new URL(url);
    } catch {
      throw new EgressError('invalid-url', 'This is not a valid address.', { url });
    }
    let method = request.method ?? 'GET';
    const connectTimeoutMs = request.connectTimeoutMs ?? options.connectTimeoutMs ?? 5_000;
    const maxBytes = request.maxBytes ?? options.maxBytes ?? 5 * 1024 * 1024;
    const redirects: EgressHop[] = [];
    for (;;) {
      const target = await checkHop(current, signal);
      const res = await requestHop(target, method, signal, connectTimeoutMs);
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECTS.has(status) && location) {
        res.destroy();
        if (redirects.length >= maxRedirects) {
          throw new EgressError('too-many-redirects', `More than ${maxRedirects} redirects.`, {
            url: current.href,
          });
        }
        redirects.push({ url: current.href, status });
        try {
          current = new URL(location, current);
        } catch {
          throw new EgressError('invalid-url', `It redirects to an invalid address (${location}).`, {
            url: current.href,
          });
        }
        if (status === 303 && method !== 'HEAD') method = 'GET';
        continue;
      }
      const lengthHeader = res.headers['content-length'];
      const contentLength = lengthHeader && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : undefined;
      const base = {
        url: current.href,
        status,
        headers: res.headers,
        redirects,
        address: target.address,
        contentLength,
      };
      if (request.body === 'discard' || method === 'HEAD') {
        res.destroy();
        return { ...base, body: Buffer.alloc(0), bytesRead: 0, truncated: false };
      }
      const overflow = request.overflow ?? 'error';
      if (overflow === 'error' && contentLength !== undefined && contentLength > maxBytes) {
        res.destroy();
        throw new EgressError('too-large', `The answer is larger than ${maxBytes} bytes.`, {
          url: current.href,
        });
      }
      return { ...base, ...(await readBody(res, maxBytes, overflow, current.href)) };
    }
  }

  return {
    check,
    async fetch(url, request) {
      if (!limits.take(request.userId)) {
        throw new EgressError(
          'rate-limited',
          'Too many outside requests in the last minute; try again in a minute.',
          {
            url,
          },
        );
      }
      const totalTimeoutMs = request.totalTimeoutMs ?? options.totalTimeoutMs ?? 10_000;
      const timeout = new AbortController();
      const timeoutError = new EgressError('timeout', 'The server took too long to answer.', { url });
      const signal = request.signal ? AbortSignal.any([request.signal, timeout.signal]) : timeout.signal;
      let release: (() => void) | undefined;
      try {
        release = await limits.acquire(request.userId, request.signal);
        // The clock starts once a slot is free: waiting behind the caps is not the server's fault.
        const timer = setTimeout(() => timeout.abort(timeoutError), totalTimeoutMs);
        try {
          return await fetchChecked(url, request, signal);
        } finally {
          clearTimeout(timer);
        }
      } catch (err) {
        if (timeout.signal.aborted) throw timeoutError;
        if (request.signal?.aborted) throw new EgressError('aborted', 'The check was stopped.', { url });
        throw err instanceof EgressError ? err : classifyNetworkError(err, url);
      } finally {
        release?.();
      }
    },
  };
}
