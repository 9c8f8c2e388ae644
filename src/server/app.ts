import cors from '@fastify/cors';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { randomUUID } from 'node:crypto';
import type { Clock } from './clock.ts';
import { systemClock } from './clock.ts';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import { registerSystemRoutes } from './features/system/system.routes.ts';
import { registerErrorHandling } from './http/errors.ts';
import { loggerOptions } from './http/logging.ts';
import { registerSecurityHeaders } from './http/security-headers.ts';
import { registerSpa } from './http/spa.ts';

/** Everything the app talks to is passed in (guide §1.6): buildApp reads no env, opens nothing. */
export interface AppDeps {
  config: Config;
  db: Db;
  clock?: Clock;
  /** Directory of the built SPA (dist/web); absent in API-only tests. */
  webRoot?: string;
  /** Where request logs go (tests capture them); defaults to stdout. */
  logStream?: NodeJS.WritableStream;
  /** True when mail goes to the local catcher instead of a real relay. */
  mailCatcher?: boolean;
}

/** Default request body cap; routes that take more (email HTML) raise their own. */
export const DEFAULT_BODY_LIMIT = 100 * 1024;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger: loggerOptions(config.logLevel, deps.logStream),
    trustProxy: config.trustProxy,
    bodyLimit: DEFAULT_BODY_LIMIT,
    genReqId: () => randomUUID(),
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  await registerSecurityHeaders(app, config);
  if (config.corsOrigins.length > 0) {
    // An allowlist only: an origin not listed gets no CORS headers at all.
    await app.register(cors, {
      origin: config.corsOrigins,
      credentials: true,
      methods: ['GET', 'POST', 'PATCH', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type'],
      maxAge: 600,
    });
  }

  const full: Required<Pick<AppDeps, 'clock'>> & AppDeps = { clock: systemClock, ...deps };
  registerSystemRoutes(app, full);

  await registerSpa(app, deps.webRoot);
  return app;
}
