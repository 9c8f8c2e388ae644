import { MAX_HTML_BYTES } from '../../shared/contract/email.ts';

/**
 * Why a document was not processed: too deep, grown past the size limit by a step (the HTML, or a
 * text part written by the user, by its merge tags), a subject made too long by its merge tags, over its time budget, rejected by the inliner, MJML that does not
 * compile, merge tags that cannot be read, ask for what templates may not have or use more memory
 * than they may, an unexpected failure of a transform, every transform process busy with a full
 * queue, or the user's own jobs filling their share of it.
 */
export type PrepareErrorCode =
  | 'document_too_deep'
  | 'html_too_large'
  | 'text_too_large'
  | 'subject_too_long'
  | 'processing_timeout'
  | 'inline_failed'
  | 'mjml_invalid'
  | 'template_invalid'
  | 'template_not_allowed'
  | 'template_too_large'
  | 'processing_failed'
  | 'busy'
  | 'too_many_jobs';

/** One problem at a line of the source as written (MJML: of the source after its tags are filled). */
export interface SourceProblem {
  line: number;
  message: string;
}

/** The first line of an unexpected failure, at most 200 characters: the reason a message names. */
export function failureReason(err: unknown): string {
  return err instanceof Error ? err.message.split('\n')[0]!.slice(0, 200) : String(err);
}

/** A document the pipeline cannot process, with a message that names the problem and the way out. */
export class PrepareError extends Error {
  constructor(
    readonly code: PrepareErrorCode,
    message: string,
    /** Where in the source, when the problem has a line (MJML and merge tags). */
    readonly problems?: SourceProblem[],
  ) {
    super(message);
    this.name = 'PrepareError';
  }
}

/** The steps that can make the HTML larger than the source, and what to do about each. */
const GROWN_BY = {
  'merge tags':
    'once its merge tags are filled: the limit is 1 MB. Check the merge tags for a loop that repeats too much.',
  mjml: 'once its MJML is compiled: the limit is 1 MB. Make the MJML smaller.',
  inlining: 'once its CSS is inlined: the limit is 1 MB. Send it without Inline CSS, or make it smaller.',
} as const;

/** The HTML grew past the limit a source has (`MAX_HTML_BYTES`) in one of the steps. */
export function grownTooLarge(step: keyof typeof GROWN_BY): PrepareError {
  return new PrepareError('html_too_large', `HTML content is too large ${GROWN_BY[step]}`);
}

/**
 * The HTML a step produced, or `grownTooLarge` when it is over the limit: checked before the next
 * step spends any work on it. UTF-8 takes at most 3 bytes per UTF-16 unit, so most HTML is never counted.
 */
export function withinLimit(html: string, step: keyof typeof GROWN_BY): string {
  if (html.length * 3 > MAX_HTML_BYTES && Buffer.byteLength(html, 'utf8') > MAX_HTML_BYTES) {
    throw grownTooLarge(step);
  }
  return html;
}
