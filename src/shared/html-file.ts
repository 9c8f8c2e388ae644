/**
 * The first encoding an HTML document declares in a `<meta>` of its first 1,024 bytes, lower-cased;
 * one in a comment does not count, as the browser's prescan skips comments.
 */
function declaredCharset(html: string): string | undefined {
  const head = html.slice(0, 1024).replace(/<!--[\s\S]*?(?:-->|$)/g, '');
  const match = /<meta\b[^>]*?charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head);
  return match?.[1]?.toLowerCase();
}

/**
 * The HTML part as sent, as a file (docs/decisions/0121-html-export-says-utf-8.md);
 * the export route and the detail page's HTML Source tab save the same bytes. The message
 * labels the part UTF-8 in its MIME header, which a file on disk loses: a browser opening it would
 * decode by the email's own `<meta>` (windows-1252, say) or guess. A byte order mark comes before
 * any `<meta>` in the encoding sniffing, so the file starts with one when it has non-ASCII text and
 * does not itself declare UTF-8; otherwise its bytes are the part's bytes.
 */
export function htmlFile(html: string): string {
  if (html.startsWith('\uFEFF') || !/[^\p{ASCII}]/u.test(html)) return html;
  const declared = declaredCharset(html);
  return declared === 'utf-8' || declared === 'utf8' ? html : `\uFEFF${html}`;
}
