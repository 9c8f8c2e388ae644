import type { FastifyError, FastifyInstance } from 'fastify';
import { STATUS_CODES } from 'node:http';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { codeWhenAbsent, type ErrorResponse } from '../../shared/contract/common.ts';

/**
 * The one error type. Throw it from routes and services; the handler below turns it, and every
 * other failure, into the one JSON shape `{ error, code? }` (docs/architecture.md §6).
 */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly code?: string,
    /** Seconds; answered as a Retry-After header (a 429 or 503 that knows when to come back). */
    readonly retryAfterS?: number,
    /** Lines of the source the problem is at (MJML, merge tags), answered as `problems`. */
    readonly problems?: ErrorResponse['problems'],
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (message: string, code?: string) => new AppError(400, message, code);
export const unauthorized = (message = 'Not authenticated', code = 'unauthenticated') =>
  new AppError(401, message, code);
export const forbidden = (message: string, code?: string) => new AppError(403, message, code);
export const notFound = (message = 'Not found', code = 'not_found') => new AppError(404, message, code);
export const tooManyRequests = (message: string, code = 'rate_limited', retryAfterSeconds?: number) =>
  new AppError(
    429,
    message,
    code,
    retryAfterSeconds === undefined ? undefined : Math.max(1, Math.ceil(retryAfterSeconds)),
  );

/** PostgreSQL's disk_full: the database could not write (docs/decisions/0043-embedded-postgres-supervision.md). */
const DISK_FULL = '53100';

/**
 * Errors that mean "the database cannot do it right now": unreachable, restarting, or short of a
 * resource (SQLSTATE classes 08 connection, 53 insufficient resources, 57P admin shutdown and
 * crash, 58 system/I/O). Answer 503, never a 2xx.
 */
function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03'].includes(code) ||
    /^(08|53|58)[0-9A-Z]{3}$/.test(code) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
      message,
    )
  );
}

type ValidationIssue = { instancePath?: string; message?: string; params?: unknown };

/**
 * The answer to a schema's refusal: `field: message`, code `invalid_request`. A bound the contract
 * gives a service's own message and code (`serviceCheckedString` in src/shared/contract/common.ts)
 * answers exactly as that service does.
 */
function describeValidation(error: { validation: ValidationIssue[]; validationContext?: string }): {
  error: string;
  code: string;
} {
  const first = error.validation[0];
  if (!first) return { error: 'Invalid request', code: 'invalid_request' };
  // A body that is not an object at all (none, null, an array, a string): say so, not "expected
  // object, received array".
  if (
    error.validationContext === 'body' &&
    (first.instancePath ?? '/') === '/' &&
    (first as { keyword?: string }).keyword === 'invalid_type'
  )
    return { error: 'Request body must be a JSON object', code: 'invalid_body' };
  const own = (first.params as { params?: { code?: unknown } } | undefined)?.params?.code;
  if (typeof own === 'string' && first.message) return { error: first.message, code: own };
  const absent = first.message ? codeWhenAbsent(first.message) : undefined;
  if (absent && first.message) return { error: first.message, code: absent };
  const field = first.instancePath?.replace(/^\//, '').replaceAll('/', '.');
  const message = field ? `${field}: ${first.message ?? 'is invalid'}` : (first.message ?? 'Invalid request');
  return { error: message, code: 'invalid_request' };
}

function reply(
  statusCode: number,
  error: string,
  code?: string,
  problems?: ErrorResponse['problems'],
): { statusCode: number; body: ErrorResponse } {
  return { statusCode, body: { error, ...(code ? { code } : {}), ...(problems ? { problems } : {}) } };
}

export function toErrorResponse(err: unknown): { statusCode: number; body: ErrorResponse } {
  if (err instanceof AppError) return reply(err.statusCode, err.message, err.code, err.problems);
  if (hasZodFastifySchemaValidationErrors(err)) {
    const { error, code } = describeValidation(err);
    return reply(400, error, code);
  }
  const fe = err as Partial<FastifyError>;
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return reply(413, 'Request body is too large', 'body_too_large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return reply(415, 'Unsupported content type: send JSON', 'unsupported_media_type');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return reply(400, 'Request body is empty: send a JSON object', 'missing_body');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return reply(400, 'Request body is not valid JSON', 'invalid_json');
    case 'FST_ERR_VALIDATION':
      return reply(400, fe.message ?? 'Invalid request', 'invalid_request');
    // The router's own refusals (docs/architecture.md §6): never echo the path back.
    case 'FST_ERR_BAD_URL':
      return reply(400, 'The address is not a valid URL', 'bad_url');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return reply(414, 'The address is too long', 'uri_too_long');
  }
  if (err instanceof SyntaxError) return reply(400, 'Request body is not valid JSON', 'invalid_json');
  // PostgreSQL text cannot hold NUL (22021) or characters outside UTF-8 (22P05): bad input, not a crash.
  if (fe.code === '22021' || fe.code === '22P05') {
    return reply(400, 'Text must not contain NUL or invalid characters', 'invalid_text');
  }
  if (fe.code === DISK_FULL) {
    return reply(
      503,
      'The server is out of storage space, so your request was not saved (nothing was sent or charged). ' +
        'Please try again later.',
      'storage_full',
    );
  }
  if (isDatabaseUnavailable(err)) {
    return reply(503, 'Service temporarily unavailable, please try again shortly', 'unavailable');
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    // Other framework and plugin refusals: the standard reason, never a message that may quote input.
    return reply(fe.statusCode, STATUS_CODES[fe.statusCode] ?? 'Bad request');
  }
  return reply(500, 'Internal server error', 'internal');
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, request, res) => {
    const { statusCode, body } = toErrorResponse(err);
    if (statusCode >= 500) {
      // Serialization failures mean a route answered with a field its schema does not allow.
      const kind = isResponseSerializationError(err) ? 'response did not match its schema' : 'request failed';
      request.log.error({ err }, kind);
    }
    if (err instanceof AppError && err.retryAfterS !== undefined) {
      void res.header('Retry-After', String(Math.max(1, Math.ceil(err.retryAfterS))));
    }
    void res.status(statusCode).send(body);
  });
}
