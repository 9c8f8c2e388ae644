import { Buffer } from 'node:buffer';
import type { MessageHeader } from '../mail/message.ts';
import { textFromHtml } from '../mail/text-part.ts';
import { DEFAULT_SUBJECT, MAX_SUBJECT_LENGTH, type TemplateSyntax } from '../../shared/contract/email.ts';
import { documentDepth, MAX_DOCUMENT_DEPTH } from './document-depth.ts';
import { hidesByRule, inlineCss } from './inline-css.ts';
import {
  measureMessage,
  type MeasuredMessage,
  type MessagePart,
  type PrepareEnvelope,
} from './measure-message.ts';
import { fillMergeTags, type Filled, type TemplateInput } from './merge-tags/merge-tags.ts';
import { atWrittenLines, compileMjml } from './mjml.ts';
import { failureReason, PrepareError, withinLimit } from './prepare-error.ts';

export { PrepareError, type PrepareErrorCode, type SourceProblem } from './prepare-error.ts';
export {
  measureMessage,
  placeholderMessageId,
  type MeasuredMessage,
  type PrepareEnvelope,
} from './measure-message.ts';

/**
 * The one door from what the user wrote to exactly what is sent (docs/architecture.md §9).
 * Sending and previewing both call `prepare`, so a preview is the message a send delivers. It is a
 * pure function of its arguments (no clock, no randomness, no I/O) and runs in the transform pool
 * (transform-pool.ts), never on the event loop.
 *
 * Steps: fill the merge tags with the sample data (when a syntax is given) → compile the MJML (when
 * the source is MJML) → measure the nesting depth → inline the CSS (when asked) and the text part
 * (the user's, or generated from the HTML before inlining: docs/decisions/0105-text-part-beside-the-inlining.md)
 * → build the MIME message exactly as it leaves, to measure it. Tags are
 * filled first, in the source, so they may stand anywhere MJML allows text, loops may repeat MJML
 * sections, and the values are HTML-escaped by the engines
 * (docs/decisions/0068-merge-tags-sandboxed.md). Line ends become LF in the parts; the message
 * carries them as CRLF, so a part decodes to the same text with CRLF.
 *
 * The steps come in two halves: `prepareHtml` (up to the inlined HTML, the text part and the
 * subject) and `measureMessage` (measure-message.ts: the MIME message). The transform process may
 * generate the text part on a thread while it inlines, and build the message there while it checks
 * the HTML (docs/decisions/0094-measure-beside-the-checks.md); `prepare` runs both, one after the other.
 */

export interface PrepareInput {
  /** The source as the user wrote it: HTML, or MJML when `format` says so; with merge tags or not. */
  html: string;
  /** The source's language; absent: HTML. */
  format?: 'html' | 'mjml';
  /** Merge tags and their sample data; absent or null: the source has none to fill. */
  template?: TemplateInput | null;
  subject: string;
  inlineCss: boolean;
  /** The user's own plain-text part; null (or blank) to generate it from the HTML. */
  text: string | null;
}

export interface Prepared {
  /** The HTML part as sent. */
  html: string;
  /** The text part as sent. */
  text: string;
  subject: string;
  bytes: {
    /** UTF-8 bytes of the HTML part as sent. */
    html: number;
    /** UTF-8 bytes of the HTML as written. */
    source: number;
    /**
     * The encoded MIME message for `envelope.to`. The Message-ID and Date of a real send have the
     * same length as the measured ones, so another recipient's message differs only by the length of
     * their address in `To:`.
     */
    message: number;
  };
  notes: {
    inlined: boolean;
    keptInStyle: number;
    /** Merge tags the sample data did not fill, as written (empty without a template). */
    unfilled: string[];
    /** The syntax the merge tags were filled in, when they were. */
    syntax?: TemplateSyntax;
  };
  /** The headers every recipient gets alike (all but To, Message-ID and Date). */
  headers: MessageHeader[];
}

/** Strips CR/LF (header injection) and surrounding blanks; empty becomes the spec's default. */
export function cleanSubject(subject: string): string {
  const clean = subject.replace(/[\r\n]+/g, ' ').trim();
  return clean === '' ? DEFAULT_SUBJECT : clean;
}

/** `depth`: documentDepth's count, or its infinity for a document it stopped counting. */
function tooDeep(depth: number | 'too many'): PrepareError {
  const levels = depth === 'too many' || !Number.isFinite(depth) ? 'too many' : String(depth);
  return new PrepareError(
    'document_too_deep',
    `This HTML nests elements ${levels} levels deep; the limit is ${MAX_DOCUMENT_DEPTH}, where browsers stop nesting too. ` +
      'Unclosed tags usually cause this: close your <div>, <table> and <td> elements.',
  );
}

function inlined(html: string): { html: string; keptInStyle: number } {
  try {
    return inlineCss(html);
  } catch (err) {
    if (err instanceof RangeError) throw tooDeep('too many');
    const reason = failureReason(err);
    throw new PrepareError(
      'inline_failed',
      `CSS inlining failed on this HTML (${reason}). Send it without Inline CSS, or fix the CSS it names.`,
    );
  }
}

/**
 * The HTML whose text the text part is when a `<style>` rule hides elements: the HTML as sent when it
 * was inlined, else inlined for the text part only. Where the inliner cannot read it, the HTML as
 * written (the send goes on, as it does without Inline CSS).
 */
function inlinedForText(compiled: string, sent: string, wasInlined: boolean): string {
  if (wasInlined) return sent;
  try {
    return inlineCss(compiled).html;
  } catch {
    return compiled;
  }
}

/**
 * Plain text (the subject; a text part the user wrote, as ESPs fill a template's text body) with
 * its merge tags filled with the same data but not HTML-escaped; the names it leaves unfilled join
 * the source's. A problem in it names it, without a line (the editor's lines are the source's).
 */
function filledPlain(
  text: string,
  template: TemplateInput,
  filled: Filled,
  where: 'subject' | 'text part',
  tooLarge: () => PrepareError,
): string {
  let result: Filled;
  try {
    result = fillMergeTags(text, template, { escape: false });
  } catch (err) {
    if (err instanceof PrepareError && err.code === 'html_too_large') throw tooLarge();
    if (err instanceof PrepareError) throw new PrepareError(err.code, `In the ${where}: ${err.message}`);
    throw err;
  }
  for (const name of result.unfilled) if (!filled.unfilled.includes(name)) filled.unfilled.push(name);
  return result.output;
}

/** The subject filled and cleaned. */
function filledSubject(subject: string, template: TemplateInput, filled: Filled): string {
  const cleaned = cleanSubject(
    filledPlain(subject, template, filled, 'subject', () => subjectTooLong('far more')),
  );
  if (cleaned.length > MAX_SUBJECT_LENGTH) throw subjectTooLong(cleaned.length);
  return cleaned;
}

const textTooLarge = () =>
  new PrepareError(
    'text_too_large',
    'Plain-text part is too large once its merge tags are filled: the limit is 1 MB. Check the merge tags for a loop that repeats too much.',
  );

function subjectTooLong(length: number | 'far more'): PrepareError {
  return new PrepareError(
    'subject_too_long',
    `The subject is longer than ${MAX_SUBJECT_LENGTH} characters once its merge tags are filled ` +
      `(${typeof length === 'number' ? `${length} characters` : length}). Shorten the values it fills in.`,
  );
}

/** The first half of `prepare`: the HTML part, text part and subject as sent. */
export interface PreparedHtml extends MessagePart {
  /** UTF-8 bytes of the HTML as written. */
  sourceBytes: number;
  notes: Prepared['notes'];
}

/**
 * Generates the text part of this HTML somewhere else while the CSS is inlined (the transform
 * process's thread, measure-beside.ts): a promise of `textFromHtml(html)`, or undefined to generate
 * it in line.
 */
export type TextBeside = (html: string) => Promise<string> | undefined;

/**
 * Fills the merge tags, compiles the MJML, checks the nesting depth, inlines the CSS, generates the
 * text part and cleans the subject: everything of `prepare` but the MIME message.
 */
export async function prepareHtml(input: PrepareInput, textBeside?: TextBeside): Promise<PreparedHtml> {
  // One line-end form: the message carries CRLF (as SMTP requires), the API and the database LF.
  const written = input.html.replace(/\r\n?/g, '\n');
  // Each step that can make the HTML larger is held to the source's size limit before the next one
  // spends work on it: a loop in the merge tags, MJML's tables, inlined styles.
  const filled: Filled = input.template
    ? fillMergeTags(written, input.template)
    : { output: written, unfilled: [] };
  if (input.template) withinLimit(filled.output, 'merge tags');
  const subject = input.template
    ? filledSubject(input.subject, input.template, filled)
    : cleanSubject(input.subject);
  let depth = documentDepth(filled.output);
  if (depth > MAX_DOCUMENT_DEPTH) throw tooDeep(depth);
  let compiled = filled.output;
  if (input.format === 'mjml') {
    try {
      compiled = withinLimit(await compileMjml(filled.output), 'mjml');
    } catch (err) {
      if (err instanceof RangeError) throw tooDeep('too many');
      if (err instanceof PrepareError && err.code === 'mjml_invalid')
        throw atWrittenLines(err, written, filled.output);
      throw err;
    }
    // MJML's tables nest deeper than the source: the limit holds for what is sent.
    depth = documentDepth(compiled);
    if (depth > MAX_DOCUMENT_DEPTH) throw tooDeep(depth);
  }

  const writtenText = input.text?.trim() ? input.text.replace(/\r\n?/g, '\n') : null;
  const ownText =
    writtenText !== null && input.template
      ? filledPlain(writtenText, input.template, filled, 'text part', textTooLarge)
      : writtenText;
  // Generated from the HTML before inlining, which changes styles and attributes but never the words
  // (docs/decisions/0105-text-part-beside-the-inlining.md); a failure there is generated here again.
  // A `<style>` rule that hides elements is the exception: the text part reads the inlined HTML,
  // where they carry their `display: none` (docs/decisions/0113-text-part-reads-hiding-rules.md).
  const hiding = ownText === null && hidesByRule(compiled);
  const beside = ownText === null && !hiding ? textBeside?.(compiled)?.catch(() => undefined) : undefined;
  const { html, keptInStyle } = input.inlineCss ? inlined(compiled) : { html: compiled, keptInStyle: 0 };
  if (input.inlineCss) withinLimit(html, 'inlining');
  return {
    html,
    text:
      ownText ??
      (await beside) ??
      textFromHtml(hiding ? inlinedForText(compiled, html, input.inlineCss) : compiled),
    subject,
    sourceBytes: Buffer.byteLength(input.html, 'utf8'),
    notes: {
      inlined: input.inlineCss,
      keptInStyle,
      unfilled: filled.unfilled,
      ...(input.template && { syntax: input.template.syntax }),
    },
  };
}

/** The two halves as one `Prepared`. */
export function assemble(part: PreparedHtml, measured: MeasuredMessage): Prepared {
  return {
    html: part.html,
    text: part.text,
    subject: part.subject,
    bytes: {
      html: Buffer.byteLength(part.html, 'utf8'),
      source: part.sourceBytes,
      message: measured.message.length,
    },
    notes: part.notes,
    headers: measured.headers,
  };
}

export async function prepare(input: PrepareInput, envelope: PrepareEnvelope): Promise<Prepared> {
  const part = await prepareHtml(input);
  return assemble(part, await measureMessage(part, envelope));
}
