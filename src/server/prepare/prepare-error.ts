/**
 * Why a document was not processed: too deep, over its time budget, rejected by the inliner, MJML
 * that does not compile, merge tags that cannot be read or ask for what templates may not have, an
 * unexpected failure of a transform, or every transform process busy with a full queue.
 */
export type PrepareErrorCode =
  | 'document_too_deep'
  | 'processing_timeout'
  | 'inline_failed'
  | 'mjml_invalid'
  | 'template_invalid'
  | 'template_not_allowed'
  | 'processing_failed'
  | 'busy';

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
