import { MAX_HTML_BYTES } from '../../../shared/contract/email.ts';
import { grownTooLarge, PrepareError, type SourceProblem } from '../prepare-error.ts';

/**
 * Names a template may not read: what every JavaScript object inherits, never sample data. The
 * engines already refuse them (Handlebars' prototype access control, Liquid's `ownPropertyOnly`);
 * naming them is a clear 422 instead of an empty string.
 */
const FORBIDDEN = new Set([
  'constructor',
  'prototype',
  '__proto__',
  ...Object.getOwnPropertyNames(Object.prototype),
]);

export function isForbiddenName(name: string | number): boolean {
  return typeof name === 'string' && FORBIDDEN.has(name);
}

/** A template the engine cannot read (a syntax error), at its line when the engine knows it. */
export function templateInvalid(engine: string, reason: string, line: number | null): PrepareError {
  const problem: SourceProblem = { line: line ?? 1, message: reason };
  return new PrepareError(
    'template_invalid',
    `The ${engine} merge tags could not be read${line ? ` (line ${line})` : ''}: ${reason}`,
    [problem],
  );
}

/**
 * A template asking for what a sandboxed template may not have: files, partials, prototypes. Without
 * a line (`null`: the subject's, FillOptions.lines) the message is the reason alone.
 */
export function templateNotAllowed(message: string, line: number | null): PrepareError {
  return new PrepareError('template_not_allowed', line ? `Line ${line}: ${message}` : message, [
    { line: line ?? 1, message },
  ]);
}

export function prototypeAccess(name: string, line: number | null): PrepareError {
  return templateNotAllowed(
    `"${name}" is a property every JavaScript object has, not part of your sample data; templates may only read the data you give them.`,
    line,
  );
}

/** The value at `path` in `data`, reading own properties only; undefined where the path breaks. */
export function valueAt(data: unknown, path: readonly (string | number)[]): unknown {
  let at: unknown = data;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(at, key)) return undefined;
    at = (at as Record<string | number, unknown>)[key];
  }
  return at;
}

/** A reason from an engine's error, first line only and bounded. */
export function reasonOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0]!.slice(0, 300);
}

/**
 * A counter of what a filler writes (characters, which never exceed the bytes): past the HTML's
 * size limit it throws `grownTooLarge`, so a loop stops there instead of building hundreds of MB
 * until the process runs out of memory. Each call adds to the count.
 */
export function outputCounter(): (chars: number) => void {
  let made = 0;
  return (chars) => {
    made += chars;
    if (made > MAX_HTML_BYTES) throw grownTooLarge('merge tags');
  };
}

/** The first error in an engine's chain of wrapped errors (`originalError`) that `test` accepts. */
export function inErrorChain(err: unknown, test: (at: Error) => boolean): Error | undefined {
  for (let at: unknown = err; at instanceof Error; at = (at as { originalError?: unknown }).originalError) {
    if (test(at)) return at;
    if (at === (at as { originalError?: unknown }).originalError) break;
  }
  return undefined;
}

/**
 * An engine that ran out of room while filling: a string longer than JavaScript allows (a loop that
 * repeats far too much). The HTML would be far over the size limit, so it is that error
 * (src/server/prepare/prepare-error.ts), not a template that cannot be read.
 */
export function outOfRoom(err: unknown): PrepareError | undefined {
  const tooLong = inErrorChain(
    err,
    (at) => at instanceof RangeError && /invalid string length/i.test(at.message),
  );
  return tooLong ? grownTooLarge('merge tags') : undefined;
}
