import type { FastifyInstance } from 'fastify';
import { badRequest } from './errors.ts';

/**
 * JSON bodies are measured before they are parsed (docs/architecture.md §6). `JSON.parse` runs on
 * the event loop, and what it costs follows the body's structure, not its size: 2.8 MB of nested
 * brackets took half a second to parse and as long again to walk, while every other request
 * waited. No body this API takes nests deeper than a few levels besides the sample data (16
 * levels, 64 KB: src/shared/contract/email.ts) or holds tens of thousands of values, so a
 * linear scan refuses the rest before any parsing. A 1 MB HTML string costs one `indexOf` per
 * quote in it.
 */

/** Levels of objects and arrays: above the sample data's own limit, so that limit names itself. */
export const MAX_JSON_DEPTH = 64;
/**
 * Values (members and elements): above the 32,768 that 64 KB of sample data can hold (`[0,0,…]`),
 * so that limit, too, names itself.
 */
export const MAX_JSON_VALUES = 40_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** What makes a body too costly to parse, or null. Malformed JSON is left to the parser. */
export function jsonCostProblem(text: string): string | null {
  let depth = 0;
  let values = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Skip the string: to the next quote not escaped by an odd run of backslashes.
      let end = text.indexOf('"', i + 1);
      while (end !== -1) {
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
        if (slashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end === -1) return null;
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > MAX_JSON_DEPTH) {
        return `The request body nests too deeply: the limit is ${MAX_JSON_DEPTH} levels of objects and arrays.`;
      }
      values++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    } else if (c === COMMA && ++values > MAX_JSON_VALUES) {
      return `The request body holds too many values: the limit is ${MAX_JSON_VALUES.toLocaleString('en')}.`;
    }
  }
  return null;
}

/**
 * Why Fastify's parser refused a body that is valid JSON, or null: a key it refuses to build an
 * object with (prototype poisoning), named so the caller knows what to change. Only a body the
 * parser refused is parsed again here, and only one that could spell such a key.
 */
export function forbiddenKeyProblem(text: string): string | null {
  if (!/proto|constructor|\\u/.test(text)) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const at = stack.pop();
    if (at === null || typeof at !== 'object') continue;
    if (Object.hasOwn(at, '__proto__')) {
      return 'Request body has a key named "__proto__", which is not allowed: rename or remove it.';
    }
    const ctor = (at as { constructor?: unknown }).constructor;
    if (
      Object.hasOwn(at, 'constructor') &&
      ctor !== null &&
      typeof ctor === 'object' &&
      Object.hasOwn(ctor, 'prototype')
    ) {
      return 'Request body has a key named "constructor" holding "prototype", which is not allowed: rename or remove it.';
    }
    for (const child of Object.values(at)) stack.push(child);
  }
  return null;
}

/**
 * Fastify's own JSON parser (prototype poisoning refused), behind the scan above; and no parser for
 * text/plain. Fastify's built-in one would hand a JSON body sent as text/plain (what fetch sends
 * for a string body) to the schema as a string, answered "expected object, received string"; no
 * route takes text (Stripe's webhook has a raw parser in its own scope,
 * src/server/features/billing/billing.routes.ts), so it gets the 415 every other type does
 * (docs/decisions/0114-answers-that-say-what-the-api-takes.md).
 */
/** Whether a route's body schema (zod) refuses no body at all; a route without one takes none. */
function needsBody(schema: unknown): boolean {
  if (schema === undefined || schema === null) return false;
  const parse = (schema as { safeParse?: (value: unknown) => { success: boolean } }).safeParse;
  return typeof parse !== 'function' || !parse.call(schema, undefined).success;
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    // Many clients send this Content-Type on every request: an empty body is no body where the
    // route takes none, or takes one only optionally.
    if (text === '' && !needsBody(request.routeOptions.schema?.body)) {
      done(null, undefined);
      return;
    }
    const problem = jsonCostProblem(text);
    if (problem) {
      done(badRequest(problem, 'body_too_complex'), undefined);
      return;
    }
    parse(request, text, (err, value) => {
      const forbidden = err ? forbiddenKeyProblem(text) : null;
      if (forbidden) done(badRequest(forbidden, 'forbidden_key'), undefined);
      else done(err, value);
    });
  });
}
