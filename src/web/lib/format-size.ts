/** Sizes and counts as people read them: "1 line · 12 bytes", "1,204 lines · 38.2 KB". */

const plural = (n: number, one: string, many: string) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** Bytes in binary units (1 KB = 1,024 bytes, as mail clients count sizes): one decimal below 10. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return plural(bytes, 'byte', 'bytes');
  const [value, unit] = bytes < 1024 * 1024 ? [bytes / 1024, 'KB'] : [bytes / (1024 * 1024), 'MB'];
  const shown = value < 10 ? value.toFixed(1) : Math.round(value).toLocaleString('en-US');
  return `${shown} ${unit}`;
}

/** The UTF-8 size of a text, as it is stored and sent. */
export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** Lines as an editor numbers them: none for an empty text, and a final newline ends a line. */
export function countLines(text: string): number {
  if (text === '') return 0;
  const breaks = text.match(/\r\n|\r|\n/g)?.length ?? 0;
  return /(?:\r\n|\r|\n)$/.test(text) ? breaks : breaks + 1;
}

/** "3 lines · 1.2 KB" */
export function describeText(text: string): string {
  return `${plural(countLines(text), 'line', 'lines')} · ${formatBytes(utf8Bytes(text))}`;
}
