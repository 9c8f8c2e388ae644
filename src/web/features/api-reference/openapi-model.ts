/**
 * The slice of an OpenAPI 3.1 document the API Reference page reads (GET /api/openapi.json, built
 * by src/server/http/openapi.ts), and the pure helpers that shape it for the page.
 */

export type JsonSchema = { [key: string]: unknown };

export interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

export interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: JsonSchema }> }>;
  security?: Record<string, string[]>[];
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema>; securitySchemes?: Record<string, JsonSchema> };
}

export interface Operation extends OpenApiOperation {
  method: string;
  path: string;
  /** The element id of its section: `post-api-email-send`. */
  anchor: string;
}

export interface OperationGroup {
  name: string;
  description?: string;
  anchor: string;
  operations: Operation[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** `POST /api/email/{id}/share` → `post-api-email-id-share` */
export function operationAnchor(method: string, path: string): string {
  return `${method}-${path}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** Who may call an operation, read from its `security` (an empty list: anyone). */
export function accessOf(op: OpenApiOperation): 'public' | 'session' | 'apiKey' {
  const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
  if (schemes.length === 0) return 'public';
  return schemes.includes('apiKey') ? 'apiKey' : 'session';
}

/** Operations grouped by their first tag in the document's tag order, or by path prefix without tags. */
export function groupOperations(doc: OpenApiDocument): OperationGroup[] {
  const groups = new Map<string, OperationGroup>();
  const group = (name: string) => {
    let g = groups.get(name);
    if (!g) {
      g = { name, anchor: `tag-${operationAnchor('', name)}`, operations: [] };
      groups.set(name, g);
    }
    return g;
  };
  for (const tag of doc.tags ?? []) group(tag.name).description = tag.description;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const name = op.tags?.[0] ?? `/${path.split('/').filter(Boolean).slice(0, 2).join('/')}`;
      group(name).operations.push({ ...op, method, path, anchor: operationAnchor(method, path) });
    }
  }
  return [...groups.values()].filter((g) => g.operations.length > 0);
}

/** The schema a `$ref` points at (`#/$defs/X` within `root`, or `#/components/schemas/X`). */
export function resolveRef(ref: string, root: JsonSchema, doc?: OpenApiDocument): JsonSchema | undefined {
  if (!ref.startsWith('#/')) return undefined;
  const parts = ref
    .slice(2)
    .split('/')
    .map((p) => decodeURIComponent(p.replace(/~1/g, '/').replace(/~0/g, '~')));
  const base: unknown = parts[0] === 'components' ? doc : root;
  let node: unknown = base;
  for (const part of parts) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node && typeof node === 'object' ? (node as JsonSchema) : undefined;
}

/** A schema's type in words: `string`, `string | null`, `array of object`, `"html" | "mjml"`. */
export function typeLabel(schema: JsonSchema): string {
  if ('const' in schema) return JSON.stringify(schema.const);
  const types = Array.isArray(schema.type)
    ? (schema.type as string[])
    : schema.type
      ? [schema.type as string]
      : [];
  const named = types.map((t) => {
    if (t === 'array' && schema.items && typeof schema.items === 'object') {
      const items = schema.items as JsonSchema;
      return `array of ${items.$ref ? refName(items.$ref as string) : typeLabel(items)}`;
    }
    return t;
  });
  if (named.length) return named.join(' | ');
  if (schema.$ref) return refName(schema.$ref as string);
  if (schema.oneOf || schema.anyOf) return 'one of';
  if (schema.properties) return 'object';
  return 'any';
}

export const refName = (ref: string) => ref.split('/').pop() ?? ref;

/** Limits and formats worth a reader's eye: `max 998 characters`, `email`, `1–50 items`. */
export function limitsOf(schema: JsonSchema): string[] {
  const out: string[] = [];
  // zod writes an integer's safe-integer bounds; they say nothing to a reader.
  const n = (k: string) =>
    typeof schema[k] === 'number' && Math.abs(schema[k] as number) < Number.MAX_SAFE_INTEGER
      ? (schema[k] as number)
      : undefined;
  const f = (v: number) => v.toLocaleString('en-US');
  const range = (min: number | undefined, max: number | undefined, unit: string) => {
    if (min !== undefined && max !== undefined) out.push(`${f(min)}–${f(max)} ${unit}`);
    else if (min !== undefined && min > 0) out.push(`at least ${f(min)} ${unit}`);
    else if (max !== undefined) out.push(`at most ${f(max)} ${unit}`);
  };
  range(n('minLength'), n('maxLength'), 'characters');
  range(n('minItems'), n('maxItems'), 'items');
  if (n('minimum') !== undefined) out.push(`≥ ${n('minimum')}`);
  if (n('exclusiveMinimum') !== undefined) out.push(`> ${n('exclusiveMinimum')}`);
  if (n('maximum') !== undefined) out.push(`≤ ${n('maximum')}`);
  if (n('exclusiveMaximum') !== undefined) out.push(`< ${n('exclusiveMaximum')}`);
  if (typeof schema.format === 'string') out.push(schema.format);
  if (typeof schema.pattern === 'string') out.push(`pattern ${schema.pattern}`);
  if ('default' in schema) out.push(`default ${JSON.stringify(schema.default)}`);
  return out;
}
