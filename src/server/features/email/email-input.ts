import { Buffer } from 'node:buffer';
import type { Config } from '../../config.ts';
import { AppError, badRequest } from '../../http/errors.ts';
import type { TransformPool } from '../../prepare/transform-pool.ts';
import { PrepareError } from '../../prepare/prepare-error.ts';
import type { ChecksRequest, PreparedWithChecks } from '../../prepare/transform-task.ts';
import {
  MAX_HTML_BYTES,
  MAX_TEMPLATE_DATA_BYTES,
  MAX_TEMPLATE_DATA_DEPTH,
  SEND_MESSAGES,
  type EmailTemplate,
  type SourceFormat,
  type TemplateSyntax,
} from '../../../shared/contract/email.ts';
import { parseRecipients } from '../../../shared/recipients.ts';

/** What sending and previewing take from the user, checked alike (docs/spec.md §5). */
export interface EmailInput {
  to: string;
  subject: string;
  html: string;
  inlineCss: boolean;
  text?: string;
  /** The language of `html` (absent: HTML). */
  format?: SourceFormat;
  /** Merge tags and sample data as the request gave them (`data` checked by `checkTemplate`). */
  template?: { syntax: TemplateSyntax; data?: unknown };
}

/** Nesting levels of a JSON value (an object or array is one level), counted without recursion. */
function jsonDepth(value: unknown, stopAbove: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [at, depth] = stack.pop()!;
    if (at === null || typeof at !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > stopAbove) return deepest;
    for (const child of Object.values(at)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * The sample data checked before any work: a JSON object, at most 16 levels deep and 64 KB of
 * JSON. Each problem is a 400 that names it.
 */
export function checkTemplate(template: EmailInput['template']): EmailTemplate | null {
  if (!template) return null;
  const { data } = template;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    const got =
      data === undefined
        ? 'nothing'
        : Array.isArray(data)
          ? 'an array'
          : `a ${data === null ? 'null' : typeof data}`;
    throw badRequest(
      `Sample data must be a JSON object such as {"name": "Ada"}; it is ${got}.`,
      'invalid_template_data',
    );
  }
  if (jsonDepth(data, MAX_TEMPLATE_DATA_DEPTH) > MAX_TEMPLATE_DATA_DEPTH) {
    throw badRequest(
      `Sample data nests too deeply: the limit is ${MAX_TEMPLATE_DATA_DEPTH} levels of objects and arrays.`,
      'template_data_too_deep',
    );
  }
  const bytes = Buffer.byteLength(JSON.stringify(data), 'utf8');
  if (bytes > MAX_TEMPLATE_DATA_BYTES) {
    throw badRequest(
      `Sample data is too large: ${Math.ceil(bytes / 1024)} KB of JSON; the limit is ${MAX_TEMPLATE_DATA_BYTES / 1024} KB.`,
      'template_data_too_large',
    );
  }
  return { syntax: template.syntax, data: data as Record<string, unknown> };
}

const missingFields = () =>
  badRequest(`${SEND_MESSAGES.missingTitle}: ${SEND_MESSAGES.missingDetail}`, 'missing_fields');

/**
 * The cheap checks, before any limit is taken or any work done: required fields, the 1 MB caps,
 * and the recipients rule. Returns the recipients (empty when `to` is optional and blank).
 */
export function checkEmailInput(input: EmailInput, { requireTo }: { requireTo: boolean }): string[] {
  if ((requireTo && !input.to.trim()) || !input.html.trim()) throw missingFields();
  checkTemplate(input.template);
  if (Buffer.byteLength(input.html, 'utf8') > MAX_HTML_BYTES) {
    throw new AppError(413, 'HTML content is too large: the limit is 1 MB', 'html_too_large');
  }
  if (input.text !== undefined && Buffer.byteLength(input.text, 'utf8') > MAX_HTML_BYTES) {
    throw new AppError(413, 'Plain-text part is too large: the limit is 1 MB', 'text_too_large');
  }
  if (!requireTo && !input.to.trim()) return [];
  const parsed = parseRecipients(input.to);
  if (parsed.ok) return parsed.recipients;
  if (parsed.reason === 'too_many') {
    throw badRequest(`${SEND_MESSAGES.tooManyTitle}: ${SEND_MESSAGES.tooManyDetail}`, 'too_many_recipients');
  }
  // Only commas and blanks: no recipient at all.
  if (parsed.reason === 'missing') {
    if (requireTo) throw missingFields();
    return [];
  }
  throw badRequest(
    `Invalid recipient: "${parsed.invalid}" is not a plain email address (use name@example.com)`,
    'invalid_recipient',
  );
}

/**
 * Runs the one door (src/server/prepare/prepare.ts) on the transform pool for this input, measured
 * for `to`, as a job of `owner` (the user). A document the pipeline cannot process is a 422 naming
 * the problem, one a step made larger than the limit a 413 (as a source over it), a full pool a
 * 503, and the user's own jobs filling their share of its queue a 429.
 */
export async function prepareEmail(
  deps: { config: Config; transforms: TransformPool; clock: { now(): Date } },
  owner: string,
  input: EmailInput,
  envelope: { to: string; replyTo: string },
  checks?: ChecksRequest,
): Promise<PreparedWithChecks> {
  try {
    const prepared = await deps.transforms.prepare(
      {
        html: input.html,
        subject: input.subject,
        inlineCss: input.inlineCss,
        text: input.text ?? null,
        format: input.format ?? 'html',
        template: checkTemplate(input.template),
      },
      {
        from: deps.config.mailFrom,
        to: envelope.to,
        replyTo: envelope.replyTo,
        messageIdDomain: deps.config.mailDomain,
        date: deps.clock.now(),
      },
      { owner, ...(checks && { checks }) },
    );
    return prepared;
  } catch (err) {
    if (!(err instanceof PrepareError)) throw err;
    if (err.code === 'busy') throw new AppError(503, err.message, 'busy', 5);
    if (err.code === 'too_many_jobs') throw new AppError(429, err.message, 'too_many_jobs', 5);
    // A step made the HTML or the text part larger than the limit a source has: the source's own 413 and code.
    if (err.code === 'html_too_large' || err.code === 'text_too_large')
      throw new AppError(413, err.message, err.code);
    throw new AppError(422, err.message, err.code, undefined, err.problems);
  }
}
