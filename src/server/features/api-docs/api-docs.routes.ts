import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { FeatureDeps } from '../../app-deps.ts';
import { PUBLIC_ROUTE } from '../../http/auth.ts';
import { buildOpenApiDocument } from '../../http/openapi.ts';

/** The version of the API the document describes (not the app's release). */
export const API_VERSION = '1.0.0';

/** GET /api/openapi.json: the OpenAPI 3.1 document, built once from the route table. */
export function registerApiDocsRoutes(app: FastifyInstance, deps: FeatureDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  let document: Record<string, unknown> | undefined;
  r.get(
    '/api/openapi.json',
    {
      config: { ...PUBLIC_ROUTE, summary: 'This document' },
      schema: { response: { 200: z.looseObject({ openapi: z.literal('3.1.0') }) } },
    },
    async () => {
      // Every route is registered by the time a request arrives.
      document ??= buildOpenApiDocument(app.routeTable, {
        version: API_VERSION,
        serverUrl: deps.config.publicUrl,
      });
      return document as { openapi: '3.1.0' };
    },
  );
}
