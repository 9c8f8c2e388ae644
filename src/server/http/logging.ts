import type { FastifyBaseLogger, FastifyServerOptions, FastifyRequest } from 'fastify';

/**
 * Request logs carry the path only: query strings can hold tokens (verification links, OAuth
 * codes), and headers can hold bearer tokens, so neither is ever logged (docs/architecture.md §6).
 */
export function pathOnly(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

export function loggerOptions(level: string, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.token', '*.newPassword'],
      censor: '[redacted]',
    },
    serializers: {
      req: (req: FastifyRequest) => ({ method: req.method, url: pathOnly(req.url), remoteAddress: req.ip }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  };
}

type ChildLoggerFactory = NonNullable<FastifyServerOptions['childLoggerFactory']>;
type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = Parameters<FastifyBaseLogger['child']>[1];
/** The app's logger is pino (loggerOptions above), which has these beside Fastify's minimum. */
interface Logger extends FastifyBaseLogger {
  isLevelEnabled(level: string): boolean;
  bindings(): Bindings;
}
type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * Each request's logger (request.log) is a child of the app's that binds its reqId; pino builds
 * a child by serialising its bindings, measured at a few percent of an authenticated request
 * that then logs nothing (LOG_LEVEL=warn, no error). This factory gives each request a stand-in
 * that makes the real child at its first log line at an enabled level, so the lines written are
 * the same, and requests that write none pay for none. A route with its own log level or
 * serializers gets a real child at once.
 */
export const lazyChildLoggerFactory: ChildLoggerFactory = function (logger, bindings, options) {
  if (options.level !== undefined || options.serializers !== undefined)
    return logger.child(bindings, options);
  return new RequestLogger(logger as Logger, bindings);
};

class RequestLogger {
  #parent: Logger;
  #bindings: Bindings;
  #real: Logger | undefined;
  constructor(parent: Logger, bindings: Bindings) {
    this.#parent = parent;
    this.#bindings = bindings;
  }
  #child(): Logger {
    return (this.#real ??= this.#parent.child(this.#bindings) as Logger);
  }
  #log(level: LevelName, args: unknown[]): void {
    const target = this.#real ?? this.#parent;
    if (!target.isLevelEnabled(level)) return;
    (this.#child()[level] as (...a: unknown[]) => void)(...args);
  }
  get level(): string {
    return (this.#real ?? this.#parent).level;
  }
  set level(level: string) {
    this.#child().level = level;
  }
  isLevelEnabled(level: string): boolean {
    return (this.#real ?? this.#parent).isLevelEnabled(level);
  }
  bindings(): Bindings {
    return this.#child().bindings();
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#child().child(bindings, options);
  }
  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#log('error', args);
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }
  info(...args: unknown[]): void {
    this.#log('info', args);
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }
  silent(): void {}
}
