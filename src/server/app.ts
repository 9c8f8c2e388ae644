import cors from '@fastify/cors';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { randomUUID } from 'node:crypto';
import type Stripe from 'stripe';
import type { Clock } from './clock.ts';
import { systemClock } from './clock.ts';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import { registerAuthRoutes } from './features/auth/auth.routes.ts';
import { registerBillingRoutes } from './features/billing/billing.routes.ts';
import { registerDevMailboxRoutes } from './features/dev-mailbox/dev-mailbox.routes.ts';
import { registerEmailRoutes } from './features/email/email.routes.ts';
import { registerSystemRoutes } from './features/system/system.routes.ts';
import { registerUserRoutes } from './features/user/user.routes.ts';
import { registerAuthentication } from './http/auth.ts';
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
  /** The Stripe client; defaults to one built from config.stripe (none when billing is off). */
  stripe?: Stripe;
}

/** Default request body cap; routes that take more (email HTML) raise their own. */
export const DEFAULT_BODY_LIMIT = 100 * 1024;

export interface RouteEntry {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every API route, as registered: the security and fuzz suites walk it. */
    routeTable: RouteEntry[];
  }
}

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
  const routeTable: RouteEntry[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/')) return;
    for (const method of [route.method].flat()) if (method !== 'HEAD') routeTable.push({ method, url: route.url });
  });
  registerErrorHandling(app);
  registerSecurityHeaders(app, config);
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
  registerAuthentication(app, full);
  registerSystemRoutes(app, full);
  registerAuthRoutes(app, full);
  registerUserRoutes(app, full);
  registerDevMailboxRoutes(app, full);
  registerEmailRoutes(app, full);
  registerBillingRoutes(app, full);

  await registerSpa(app, deps.webRoot);
  return app;
}
