import { commentEnd, RAW_TEXT, rawTextEnd, readTag } from '../html-tokens.ts';

/**
 * The HTML comments of a source that no reader sees, for the unfilled merge tags
 * (docs/decisions/0068-merge-tags-sandboxed.md): a tag in `<!-- … -->` renders to nothing anyone
 * reads, so it is not reported. Outlook's conditional comments (`<!--[if mso]> … <![endif]-->`)
 * are read by Outlook and do not count. The source is read as HTML's tokenizer reads it, merge tags
 * and all: `<!--` inside a start tag's attributes or in raw text (`<style>`, `<script>`…, and
 * MJML's `<mj-style>`, CSS) opens no comment; a comment never closed runs to the end.
 *
 * Returns whether an offset of the source is inside such a comment, or null when there is none.
 */
export function htmlCommentsHidden(
  written: string,
  syntax: 'handlebars' | 'liquid' | 'mailchimp',
): ((offset: number) => boolean) | null {
  // The template's own comments render nothing: a `<!--` inside one opens no HTML comment.
  const source = syntax === 'mailchimp' ? written : withoutTemplateComments(written, syntax);
  /** Starts and ends of the comments, in order. */
  const starts: number[] = [];
  const ends: number[] = [];
  let at = source.indexOf('<');
  while (at !== -1) {
    // `<![CDATA[…]]>`, `<!DOCTYPE …>`, `<?…>`: HTML's bogus comments and declarations end at the
    // first `>`, and hide nothing a merge tag would be in (a `<!--` inside one opens nothing).
    if ((source.startsWith('<!', at) && !source.startsWith('<!--', at)) || source.startsWith('<?', at)) {
      const end = source.indexOf('>', at + 2);
      if (end === -1) break;
      at = source.indexOf('<', end + 1);
      continue;
    }
    if (source.startsWith('<!--', at)) {
      const end = commentEnd(source, at + 4);
      const stop = end === -1 ? source.length : end;
      if (!/^\[if\b/i.test(source.slice(at + 4, at + 8))) {
        starts.push(at);
        ends.push(stop);
      }
      at = source.indexOf('<', stop);
      continue;
    }
    const name = /^<([A-Za-z][^\s/>]*)/.exec(source.slice(at, at + 100))?.[1];
    if (name === undefined) {
      at = source.indexOf('<', at + 1);
      continue;
    }
    const tag = readTag(source, at + 1 + name.length);
    if (tag.end === -1) break;
    const element = name.toLowerCase();
    if (RAW_TEXT.has(element) || element === 'mj-style') {
      const close = rawTextEnd(source, element, tag.end);
      if (close === -1) break;
      at = source.indexOf('<', close + 1);
    } else {
      at = source.indexOf('<', tag.end);
    }
  }
  if (starts.length === 0) return null;
  return (offset) => {
    // The last comment starting at or before the offset.
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (starts[mid]! <= offset) low = mid + 1;
      else high = mid;
    }
    return low > 0 && offset < ends[low - 1]!;
  };
}

/**
 * The source with the template engine's comments (`{{!-- … --}}` and `{{! … }}`; `{% comment %} …
 * {% endcomment %}` and `{% # … %}`) turned into spaces, so offsets stay where they were. Linear:
 * each search starts where the last one ended.
 */
function withoutTemplateComments(source: string, syntax: 'handlebars' | 'liquid'): string {
  const pattern =
    syntax === 'handlebars'
      ? /\{\{~?!--[\s\S]*?--~?\}\}|\{\{~?![\s\S]*?\}\}/g
      : /\{%-?\s*comment\s*-?%\}[\s\S]*?\{%-?\s*endcomment\s*-?%\}|\{%-?\s*#[\s\S]*?%\}/g;
  return source.replace(pattern, (comment) => ' '.repeat(comment.length));
}
