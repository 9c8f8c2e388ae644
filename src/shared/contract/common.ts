import { z } from 'zod';

/** The one error shape every failing API call answers with (docs/architecture.md §6). */
export const errorResponse = z.object({
  error: z.string(),
  code: z.string().optional(),
  /** Where in the source the problem is (MJML and merge tags), for the editor to mark. */
  problems: z.array(z.object({ line: z.number().int(), message: z.string() })).optional(),
});
export type ErrorResponse = z.infer<typeof errorResponse>;

/** Spec texts answered for a field left out, by message (see whenAbsent). */
const absentCodes = new Map<string, string>();

/**
 * For a required field whose absence the spec answers in its own words ("Missing required fields:
 * …", "Please fill in all fields"), as an empty one is: zod's "expected string, received
 * undefined" becomes `refusal.message`, and src/server/http/errors.ts answers it with
 * `refusal.code` (codeWhenAbsent). Pass to the field's `z.string()`.
 */
export function whenAbsent(refusal: { message: string; code: string }) {
  absentCodes.set(refusal.message, refusal.code);
  return { error: (issue: { input?: unknown }) => (issue.input === undefined ? refusal.message : undefined) };
}
export const codeWhenAbsent = (message: string): string | undefined => absentCodes.get(message);

/**
 * A string whose real limit a service checks with its own message and code. The parser's bound
 * (`bound`) sits above that limit, so below it the service's message answers; past it the answer is
 * the same message and code (carried as `params.code`, which src/server/http/errors.ts answers as
 * the code), never zod's own text. The real limit is what the OpenAPI document states, through
 * `.meta()` (docs/decisions/0114-answers-that-say-what-the-api-takes.md).
 */
export const serviceCheckedString = (
  bound: number,
  refusal: { message: string; code: string },
  /** What the service answers for an empty one, answered too when the field is left out (whenAbsent). */
  absent?: { message: string; code: string },
) =>
  z.string(absent && whenAbsent(absent)).refine((value) => value.length <= bound, {
    error: refusal.message,
    params: { code: refusal.code },
  });

/**
 * How the API reference words a length zod counts (UTF-16 code units), where JSON Schema's
 * `maxLength` counts characters (code points).
 */
export const UTF16_UNITS =
  'counted in UTF-16 code units (a character outside the Basic Multilingual Plane, such as most emoji, counts as two)';
