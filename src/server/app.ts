import cors from '@fastify/cors';
import Fastify, { type FastifyContextConfig, type FastifyInstance, type FastifySchema } from 'fastify';
import { randomUUID } from 'node:crypto';
import { createAccountEvents } from './accounts/account-events.ts';
import { createApiKeyResolver } from './accounts/api-keys.ts';
import { createSessionResolver } from './accounts/sessions.ts';
import type { AppDeps, FeatureDeps } from './app-deps.ts';
import { connectionTurns } from './db/connection-turns.ts';
import { createEgress } from './net/egress.ts';
import { systemClock } from './clock.ts';
import { registerApiDocsRoutes } from './features/api-docs/api-docs.routes.ts';
import { registerApiKeyRoutes } from './features/api-keys/api-keys.routes.ts';
import { registerAuthRoutes } from './features/auth/auth.routes.ts';
import { registerBillingRoutes } from './features/billing/billing.routes.ts';
import { registerDevMailboxRoutes } from './features/dev-mailbox/dev-mailbox.routes.ts';
import { registerEmailRoutes } from './features/email/email.routes.ts';
import { registerExportRoutes } from './features/email/export.routes.ts';
import { registerSystemRoutes } from './features/system/system.routes.ts';
import { registerUserRoutes } from './features/user/user.routes.ts';
import { registerAuthentication } from './http/auth.ts';
import { registerErrorHandling } from './http/errors.ts';
import { frameworkErrorOptions } from './http/framework-errors.ts';
import { registerJsonBodyParser } from './http/json-body.ts';
import { registerHostAllowlist } from './http/host-allowlist.ts';
import { lazyChildLoggerFactory, loggerOptions } from './http/logging.ts';
import { registerMethodNotAllowed } from './http/method-not-allowed.ts';
import { dropUnusedConnectionsOnClose } from './http/unused-connections.ts';
import { registerNoStore } from './http/no-store.ts';
import { registerSecurityHeaders } from './http/security-headers.ts';
import { responseSerializerCompiler } from './http/serializer.ts';
import { registerSpa } from './http/spa.ts';
import { createTransformPool, transformPoolOptions } from './prepare/transform-pool.ts';
import { createRenderer } from './render/renderer.ts';
import { trustProxyOption, trustProxyWarning } from './http/trust-proxy.ts';
import { wellFormedValidatorCompiler } from './http/well-formed-text.ts';

/** Default request body cap; routes that take more (email HTML) raise their own. */
export const DEFAULT_BODY_LIMIT = 100 * 1024;

export interface RouteEntry {
  method: string;
  url: string;
  /** The route's zod schemas as declared (the OpenAPI document is built from them). */
  schema?: FastifySchema;
  /** The route's options: PUBLIC_ROUTE, API_KEY_ROUTE (src/server/http/auth.ts). */
  config?: FastifyContextConfig;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every API route, as registered: the security and fuzz suites walk it. */
    routeTable: RouteEntry[];
  }
}

/** The composition root of the HTTP app: the one place that knows every feature. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger: loggerOptions(config.logLevel, deps.logStream),
    childLoggerFactory: lazyChildLoggerFactory,
    trustProxy: trustProxyOption(config.trustProxy),
    bodyLimit: DEFAULT_BODY_LIMIT,
    genReqId: () => randomUUID(),
    // A client that sends its body a byte at a time holds a connection until this ends it (408).
    // Fastify's default, 0, turns off even Node's 300 s: 3,000 such connections held for ever, and
    // at a 1,024-descriptor limit nobody else could connect. Node 20 only enforces the timeout the
    // server was created with (set afterwards, as Fastify sets it, it never fired:
    // tests/api/slow-requests.test.ts), and looks at each connection every
    // `connectionsCheckingInterval`: every 5 s at most, so a request is ended within 5 s of its time.
    requestTimeout: config.requestTimeoutMs,
    http: {
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(5_000, config.requestTimeoutMs / 2),
    },
    routerOptions: { ignoreTrailingSlash: true },
    ...frameworkErrorOptions(config),
  });
  const proxyWarning = trustProxyWarning(config);
  if (proxyWarning) app.log.warn(proxyWarning);
  app.setValidatorCompiler(wellFormedValidatorCompiler);
  app.setSerializerCompiler(responseSerializerCompiler);
  const routeTable: RouteEntry[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/')) return;
    for (const method of [route.method].flat())
      if (method !== 'HEAD')
        routeTable.push({ method, url: route.url, schema: route.schema, config: route.config });
  });
  registerErrorHandling(app);
  registerJsonBodyParser(app);
  dropUnusedConnectionsOnClose(app);
  registerSecurityHeaders(app, config);
  registerHostAllowlist(app, config);
  registerNoStore(app);
  // 405 with Allow for an /api address that takes other methods (the not-found handler asks it too).
  const methods = registerMethodNotAllowed(app, routeTable);
  if (config.corsOrigins.length > 0) {
    // An allowlist only: an origin not listed gets no CORS headers at all.
    await app.register(cors, {
      origin: config.corsOrigins,
      credentials: true,
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type'],
      // What a web app on another origin reads: when to retry, and what an export left out.
      exposedHeaders: [
        'Retry-After',
        'X-Render-Height',
        'X-Render-Truncated',
        'X-Render-Content-Width',
        'X-Render-Images-Failed',
      ],
      maxAge: 600,
    });
  }

  let transforms = deps.transforms;
  if (!transforms) {
    const own = createTransformPool(transformPoolOptions(config));
    app.addHook('onClose', () => own.close());
    transforms = own;
  }
  const clock = deps.clock ?? systemClock;
  const sessions = deps.sessions ?? createSessionResolver({ db: deps.db, clock });
  // The live link and image checks and the renderer's requests go out only through this guard.
  const egress = deps.egress ?? createEgress({ allowLoopback: config.egressAllowLoopback });
  const rendererOff = (reason: string | null | undefined) =>
    app.log.warn(
      `Renderer off (PNG and PDF exports, pixel diffs, thumbnails): ${reason}. ` +
        'Install chromium (apt-get install -y chromium) or set CHROMIUM_PATH.',
    );
  let renderer = deps.renderer;
  if (!renderer) {
    const own = createRenderer({
      chromiumPath: config.chromiumPath,
      searchPath: config.searchPath,
      egress,
      pages: config.renderPages,
      budgetMs: config.renderBudgetMs,
      // A Chromium that runs but cannot start a browser turns the renderer off while running.
      onOff: rendererOff,
    });
    app.addHook('onClose', () => own.close());
    renderer = own;
  }
  if (!renderer.available) rendererOff(renderer.unavailableReason);
  const accountEvents = createAccountEvents((err, what) => app.log.warn({ err }, what));
  // Searches and billing calls hold at most half the pool's connections (connection-turns.ts).
  const slowTurns = connectionTurns({ slots: Math.max(1, Math.floor(deps.config.databasePoolSize / 2)) });
  const full: FeatureDeps = {
    ...deps,
    clock,
    transforms,
    sessions,
    egress,
    renderer,
    accountEvents,
    slowTurns,
  };
  registerAuthentication(app, sessions, createApiKeyResolver(full));
  registerSystemRoutes(app, full);
  registerAuthRoutes(app, full);
  registerUserRoutes(app, full);
  registerDevMailboxRoutes(app, full);
  registerEmailRoutes(app, full);
  registerExportRoutes(app, full);
  registerBillingRoutes(app, full);
  registerApiKeyRoutes(app, full);
  registerApiDocsRoutes(app, full);

  await registerSpa(app, deps.webRoot, methods);
  return app;
}
