import { compile } from 'html-to-text';

/**
 * The plain-text alternative of an HTML mail (docs/decisions/0053-text-part-rules.md): the words
 * and links of the email as a reader of the text part should see them, without the invisible
 * characters that pad a preheader in the HTML, and without the runs of blank lines that layout
 * tables leave behind.
 */

/**
 * A run of characters that pad without showing: spaces of every width (no-break, en and em to
 * hair, narrow, medium mathematical), soft hyphens, the combining grapheme joiner (&#847;),
 * zero-width spaces and joiners, direction marks (React Email pads its preview text with them),
 * word joiners, BOMs. A preheader is followed by dozens of them (`&zwnj;&nbsp;` …) to keep the body
 * out of the inbox snippet; MJML's templates fill spacer cells with a hair space (`&#8202;`). The
 * ideographic space stays: it indents a Japanese paragraph.
 */
// eslint-disable-next-line no-misleading-character-class -- each invisible character is matched on its own, on purpose
const PAD_RUN = /[ \t\u00A0\u2000-\u200A\u202F\u205F\u00AD\u034F\u200B-\u200F\u2060\uFEFF]+/g;
const PLAIN_SPACES = /^[ \t]+$/;
/**
 * Zero-width (non-)joiners between two letters are spelling (Persian, Indic scripts, emoji
 * sequences), and direction marks there set the order of mixed Hebrew or Arabic and Latin text.
 */
const JOINERS = /^[\u200C-\u200F]+$/;
const SPACE_LIKE = /[ \t\u00A0\u2000-\u200A\u202F\u205F]/;

function replacePad(run: string, offset: number, text: string): string {
  if (PLAIN_SPACES.test(run)) return run; // ordinary spacing and indentation stay as they are
  const before = offset === 0 ? '\n' : text[offset - 1]!;
  const after = text[offset + run.length] ?? '\n';
  const atLineEdge = before === '\n' || after === '\n';
  if (!atLineEdge && JOINERS.test(run)) return run;
  if (atLineEdge) return '';
  return SPACE_LIKE.test(run) ? ' ' : '';
}

/** Drops invisible padding, trailing blanks and runs of blank lines (at most one blank line in a row). */
export function cleanText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(PAD_RUN, replacePad)
    .replace(/[ \t]+$/gm, (blank, offset: number, all: string) =>
      // "-- " alone on a line is the signature separator: keep its space.
      all.slice(offset - 2, offset) === '--' && (offset === 2 || all[offset - 3] === '\n') ? blank : '',
    )
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+|\n+$/g, '');
}

const WRAP_AT = 78;

/**
 * Wraps lines longer than 78 characters at spaces (RFC 5322's recommended line length), after the
 * padding is gone, so that invisible characters never push words onto a line of their own. A
 * continued line keeps the indentation of a list item and the `> ` of a quote. Words longer than a
 * line (links) are never cut.
 */
export function wrapText(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      if (line.length <= WRAP_AT) return line;
      const prefix = /^(?:> )*\s*(?:\* |\d+\. )?/.exec(line)![0];
      const continuation = prefix.replace(/\* |\d+\. /, (bullet) => ' '.repeat(bullet.length));
      const words = line.slice(prefix.length).split(' ');
      const out: string[] = [];
      let current = prefix;
      let empty = true;
      for (const word of words) {
        if (!empty && current.length + 1 + word.length > WRAP_AT) {
          out.push(current);
          current = continuation + word;
        } else {
          current += (empty ? '' : ' ') + word;
        }
        empty = false;
      }
      out.push(current);
      return out.join('\n');
    })
    .join('\n');
}

/**
 * Compiled once: html-to-text's `convert` rebuilds its selectors and formatters on every call,
 * which cost three to four times the conversion itself (docs/decisions/0071-send-in-two-statements.md).
 */
const toText = compile({
  // Wrapped after cleaning (wrapText): padding must not count towards a line's length.
  wordwrap: false,
  // No-break and figure spaces join words in HTML; in a text part they are only spaces.
  whitespaceCharacters: ' \t\r\n\f\u200b\u00a0\u2007\u202f',
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    { selector: 'style', format: 'skip' },
    { selector: 'head', format: 'skip' },
  ],
});

export function textFromHtml(html: string): string {
  const text = toText(html);
  return wrapText(cleanText(text));
}
