import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { AppError } from './errors.ts';

/**
 * Text no request may carry (docs/architecture.md §6): NUL, which PostgreSQL text and JSON cannot
 * hold and mail cannot carry, and a lone UTF-16 surrogate (`"\ud800"` in JSON), which is not a
 * character at all: UTF-8 has no encoding for it, so PostgreSQL refuses it in JSON and encoders
 * replace it with U+FFFD. Refused in validation, after the schema, for every route alike, so a
 * preview refuses what a send would (not a 200 for the preview and a failure at the database for
 * the send), and the answer names the field, and for the HTML the line.
 */

interface Found {
  path: string;
  text: string;
  /** Where in `text`: a key of an object is reported as such. */
  index: number;
  key: boolean;
}

/** The first code unit that is NUL or an unpaired surrogate, or -1. */
function badIndex(text: string): number {
  if ((text as string & { isWellFormed(): boolean }).isWellFormed()) return text.indexOf('\0');
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0) return i;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else return i;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) return i;
  }
  return -1;
}

/** Whether any string or key in a parsed value is bad, walked without recursion. */
function hasBadText(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const at = stack.pop();
    if (typeof at === 'string') {
      if (badIndex(at) >= 0) return true;
    } else if (Array.isArray(at)) {
      for (const child of at) if (child !== null && typeof child !== 'number') stack.push(child);
    } else if (at !== null && typeof at === 'object') {
      for (const key in at) {
        if (badIndex(key) >= 0) return true;
        stack.push((at as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/** The first bad string and where it is: the slow walk, for a value known to hold one. */
function findBadText(value: unknown): Found | null {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [at, path] = stack.pop()!;
    if (typeof at === 'string') {
      const index = badIndex(at);
      if (index >= 0) return { path, text: at, index, key: false };
    } else if (at !== null && typeof at === 'object') {
      const entries = Object.entries(at);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        const childPath = Array.isArray(at) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
        const index = Array.isArray(at) ? -1 : badIndex(key);
        if (index >= 0) return { path: path || 'the request', text: key, index, key: true };
        stack.push([child, childPath]);
      }
    }
  }
  return null;
}

function describe(found: Found): AppError {
  const unit = found.text.charCodeAt(found.index);
  const what =
    unit === 0
      ? 'a NUL character (U+0000)'
      : `half of a character (the unpaired surrogate U+${unit.toString(16).toUpperCase()})`;
  const before = found.text.slice(0, found.index);
  const line = before.split('\n').length;
  const column = found.index - before.lastIndexOf('\n');
  const where = found.key
    ? `A key in ${found.path}`
    : `${found.path || 'The request'}${line > 1 || found.text.length > 200 ? ` (line ${line}, column ${column})` : ''}`;
  const message = `${where} contains ${what}, which cannot be stored or sent: remove it.`;
  // The HTML editor marks a problem's line (src/web/features/send/html-editor.tsx).
  const problem = `${what[0]!.toUpperCase()}${what.slice(1)}, which cannot be stored or sent: remove it.`;
  const problems = found.path === 'html' ? [{ line, message: problem }] : undefined;
  return new AppError(400, message, 'invalid_text', undefined, problems);
}

/**
 * A query parameter given twice (`?limit=5&limit=6`) reaches the schema as an array, which zod
 * answers "expected number, received NaN". No query this API takes is a list, so a repeated one is
 * a 400 that names it, on every route alike, before the schema
 * (docs/decisions/0114-answers-that-say-what-the-api-takes.md).
 */
function repeatedParameter(query: unknown, known: ReadonlySet<string>): AppError | null {
  if (query === null || typeof query !== 'object') return null;
  for (const [name, value] of Object.entries(query)) {
    // Only a name of the schema's is quoted back; the schema refuses any other.
    if (Array.isArray(value) && known.has(name)) {
      return new AppError(400, `${name} is given more than once: give it once.`, 'repeated_parameter');
    }
  }
  return null;
}

/** The parameter names of a query schema (a zod object). */
function queryNames(schema: unknown): ReadonlySet<string> {
  const shape = (schema as { shape?: unknown } | null)?.shape;
  return new Set(shape !== null && typeof shape === 'object' ? Object.keys(shape) : []);
}

/** The zod validator compiler, then the check above on what the schema accepted. */
export const wellFormedValidatorCompiler: FastifySchemaCompiler<unknown> = (route) => {
  const validate = validatorCompiler(route as Parameters<typeof validatorCompiler>[0]);
  const names = route.httpPart === 'querystring' ? queryNames(route.schema) : null;
  return (data: unknown) => {
    const repeated = names ? repeatedParameter(data, names) : null;
    if (repeated) return { error: repeated };
    const result = validate(data) as { error?: unknown; value?: unknown };
    if (result.error) return result as { error: Error };
    const found = hasBadText(result.value) ? findBadText(result.value) : null;
    return found ? { error: describe(found) } : (result as { value: unknown });
  };
};
