import type { FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../config.ts';
import { toErrorResponse } from './errors.ts';
import { securityHeaders } from './security-headers.ts';

/**
 * Answers Fastify and Node give before any route or hook runs, in the one error shape
 * `{ error, code? }` with the security headers (docs/architecture.md §6): the router's refusals
 * (a malformed or over-long URL, which Fastify would answer quoting the path) and requests Node
 * cannot parse at all (a malformed request line, headers too large, a request timeout).
 */

type ServerErrorOptions = Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'>;

export function frameworkErrorOptions(config: Config): ServerErrorOptions {
  const headers = { ...securityHeaders(config), 'cache-control': 'no-store' };
  const frameworkErrors = (error: Error, _request: FastifyRequest, reply: FastifyReply) => {
    const { statusCode, body } = toErrorResponse(error);
    void reply.code(statusCode).headers(headers).send(body);
  };
  const rawHeaders = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const clientErrorHandler = (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, error, code] =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request took too long to arrive', 'request_timeout']
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'The request headers are too large', 'headers_too_large']
          : [400, 'The request is not valid HTTP', 'bad_request'];
    const json = JSON.stringify({ error, code });
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n` +
          `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n` +
          `${rawHeaders}\r\n${json}`,
      );
    }
    socket.destroy(err);
  };
  return { frameworkErrors, clientErrorHandler };
}
