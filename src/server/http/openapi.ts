import type { FastifyContextConfig, FastifySchema } from 'fastify';
import { z } from 'zod';
import { errorResponse } from '../../shared/contract/common.ts';

/**
 * The OpenAPI 3.1 document of the API (docs/decisions/0074-openapi-from-the-contract.md), built
 * from the route table: each route's zod schemas from src/shared/contract/ as JSON Schema
 * 2020-12 (zod's own `z.toJSONSchema`), its security from PUBLIC_ROUTE / API_KEY_ROUTE
 * (src/server/http/auth.ts). Nothing is written twice, so the document cannot drift from the code.
 */

type JsonSchema = Record<string, unknown>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** One line for the API reference. */
    summary?: string;
    /** The content type of a route whose answer is not JSON (no response schema). */
    produces?: string;
    /** Request headers the route reads, documented as header parameters (not validated by a schema). */
    headerParams?: { name: string; description: string }[];
    /** Error answers a client should expect besides the default one: status → when it comes. */
    errorAnswers?: Record<number, string>;
  }
}

/** A route as the route table records it (src/server/app.ts). */
export interface DocumentedRoute {
  method: string;
  url: string;
  schema?: FastifySchema;
  config?: FastifyContextConfig;
}

/** Routes left out of the document, each with the reason (tests/api/openapi.test.ts checks the rest are in). */
export const UNDOCUMENTED: { pattern: RegExp; reason: string }[] = [
  {
    pattern: /^POST \/api\/billing\/webhook$/,
    reason: "Stripe's callback, signed raw body; not for clients",
  },
  {
    pattern: /^\w+ \/api\/dev\//,
    reason: 'the local mail catcher, for loopback clients in development only',
  },
  {
    pattern: /^GET \/api\/auth\/(google|github)(\/callback)?$/,
    reason: 'browser redirects of social sign-in, not JSON calls',
  },
];

export function isDocumented(route: { method: string; url: string }): boolean {
  const name = `${route.method} ${route.url}`;
  return !UNDOCUMENTED.some((u) => u.pattern.test(name));
}

const TAGS: { name: string; description: string; match: RegExp }[] = [
  {
    name: 'Email',
    description: 'Send, preview, history, sharing and usage.',
    match: /^\/api\/(email|user\/usage)/,
  },
  { name: 'API Keys', description: 'Personal API keys (session only).', match: /^\/api\/keys/ },
  { name: 'Account', description: 'The signed-in user.', match: /^\/api\/user\// },
  {
    name: 'Auth',
    description: 'Sign-up, sign-in, verification and password reset.',
    match: /^\/api\/auth\//,
  },
  { name: 'Billing', description: 'The Pro subscription (session only).', match: /^\/api\/billing\// },
  { name: 'System', description: 'Health, public configuration and this document.', match: /^\/api\// },
];

function toJson(schema: unknown, io: 'input' | 'output'): JsonSchema | undefined {
  if (!(schema instanceof z.ZodType)) return undefined;
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return json;
}

function parameters(schema: unknown, where: 'path' | 'query'): JsonSchema[] {
  const json = toJson(schema, 'input');
  const properties = (json?.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json?.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: s,
  }));
}

const errorContent = () => ({ 'application/json': { schema: toJson(errorResponse, 'output') } });

function operation(route: DocumentedRoute): JsonSchema {
  const schema: FastifySchema = route.schema ?? {};
  const isPublic = Boolean(route.config?.public);
  const responses: Record<string, JsonSchema> = {};
  const ok = (schema.response as Record<string, unknown> | undefined)?.[200];
  const produces = route.config?.produces;
  responses['200'] = ok
    ? { description: 'OK', content: { 'application/json': { schema: toJson(ok, 'output') } } }
    : {
        description: 'OK',
        content: { [produces ?? 'application/octet-stream']: { schema: { type: 'string' } } },
      };
  for (const [status, description] of Object.entries(route.config?.errorAnswers ?? {})) {
    responses[status] = { description, content: errorContent() };
  }
  responses.default = {
    description:
      'An error: `{ error, code? }`, with the status saying which kind (4xx the request, 5xx the server).',
    content: errorContent(),
  };
  const op: JsonSchema = {
    operationId: `${route.method.toLowerCase()}${route.url.replace(/[^A-Za-z0-9]+(\w)?/g, (_m, c?: string) => (c ?? '').toUpperCase())}`,
    tags: [TAGS.find((t) => t.match.test(route.url))?.name ?? 'System'],
    summary: route.config?.summary,
    parameters: [
      ...parameters(schema.params, 'path'),
      ...parameters(schema.querystring, 'query'),
      ...(route.config?.headerParams ?? []).map((h) => ({
        name: h.name,
        in: 'header',
        required: false,
        description: h.description,
        schema: { type: 'string' },
      })),
    ],
    responses,
    security: isPublic ? [] : route.config?.apiKey ? [{ session: [] }, { apiKey: [] }] : [{ session: [] }],
  };
  if (!op.summary) delete op.summary;
  const body = toJson(schema.body, 'input');
  if (body) {
    // A body schema that accepts nothing at all (POST /api/email/{id}/share) makes the body optional.
    const required = !(schema.body instanceof z.ZodType && schema.body.safeParse(undefined).success);
    op.requestBody = { required, content: { 'application/json': { schema: body } } };
  }
  return op;
}

/** `/api/email/:id` → `/api/email/{id}` */
export const openApiPath = (url: string) => url.replace(/:([A-Za-z]+)/g, '{$1}');

export function buildOpenApiDocument(
  routes: DocumentedRoute[],
  info: { version: string; serverUrl: string },
): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes.filter(isDocumented)) {
    const path = openApiPath(route.url);
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Proofmail API',
      version: info.version,
      description:
        'Send real test emails, read their pre-send checklist and share them. Answers are JSON, but for ' +
        'the files the exports give (the `.eml` message, PNG, PDF and HTML: each operation names its ' +
        'type); every error is `{ error, code? }`, and a method an address does not take is a 405 ' +
        'with `Allow`. Call it with a personal API key (`Authorization: Bearer pm_…`, created in ' +
        'Account → API Keys) or a session token.',
    },
    servers: [{ url: info.serverUrl }],
    tags: TAGS.map(({ name, description }) => ({ name, description })),
    paths,
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'pm_…',
          description:
            'A personal API key. It acts as its owner on the routes that list it, and cannot change the account.',
        },
        session: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The session token that sign-in and sign-up answer (the web app keeps it in local storage).',
        },
      },
    },
  };
}
