/**
 * What a document may start with before its doctype, read as an HTML parser reads it in its
 * initial state (the HTML standard's tokenizer): a byte-order mark, white space (tab, line feed,
 * form feed, carriage return, space only: a no-break space is text, and makes what follows body
 * content), comments and bogus comments (`<?xml …>`, `<!…>`). The preview and the renderer put
 * their preamble after a leading doctype, so that the doctype keeps its meaning (a legacy one
 * selects quirks mode) and the preamble lands in the head; the checklist reads an MJML root past it.
 *
 * In one pass, with `indexOf`: a regular expression with a lazy comment inside a repeated group
 * (`(?:<!--[\s\S]*?-->)*`) can split a run of comments in 2^n ways, and a 342-byte email of
 * comments held the event loop for 23 s.
 */

const HTML_SPACE = new Set(['\t', '\n', '\f', '\r', ' ']);

/**
 * The end of the comment that starts at `at` (`<!--`), as the tokenizer ends it: at `-->` or
 * `--!>`, whichever comes first (each `--` looked at once: searching for the two separately would
 * scan to the end for the one that is not there, at every comment).
 */
function commentEnd(html: string, at: number): number {
  const body = at + 4;
  if (html.startsWith('>', body)) return body + 1; // <!-->
  if (html.startsWith('->', body)) return body + 2; // <!--->
  for (let dashes = html.indexOf('--', body); dashes !== -1; dashes = html.indexOf('--', dashes + 1)) {
    if (html[dashes + 2] === '>') return dashes + 3;
    if (html[dashes + 2] === '!' && html[dashes + 3] === '>') return dashes + 4;
  }
  return html.length; // runs to the end
}

/** The end of a bogus comment or a doctype: the first `>`, or the end of the document. */
function tagEnd(html: string, at: number): number {
  const close = html.indexOf('>', at);
  return close === -1 ? html.length : close + 1;
}

const isDoctype = (html: string, at: number) => html.slice(at + 2, at + 9).toLowerCase() === 'doctype';

/** Where the leading BOM, white space and comments end. */
export function afterLeadingMarkup(html: string): number {
  let at = html.startsWith('\uFEFF') ? 1 : 0;
  for (;;) {
    while (at < html.length && HTML_SPACE.has(html[at]!)) at++;
    if (html.startsWith('<!--', at)) at = commentEnd(html, at);
    else if (html.startsWith('<?', at) || (html.startsWith('<!', at) && !isDoctype(html, at)))
      at = tagEnd(html, at);
    else return at;
  }
}

/** Where a leading doctype ends (after the markup above), or -1 when the document has none first. */
export function leadingDoctypeEnd(html: string): number {
  const at = afterLeadingMarkup(html);
  return html.startsWith('<!', at) && isDoctype(html, at) ? tagEnd(html, at) : -1;
}
