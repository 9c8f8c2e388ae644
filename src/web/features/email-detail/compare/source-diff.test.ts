import { describe, expect, it } from 'vitest';
import {
  diffSources,
  inlineLines,
  LINE_CONTEXT,
  LONG_LINE,
  summaryOf,
  type DiffRow,
  type Segment,
} from './source-diff.ts';

/** An email of `n` table rows, one per line, as an agency writes them. */
function email(rows: string[]): string {
  return [
    '<!doctype html>',
    '<html>',
    '<body style="margin:0">',
    '<table width="600" cellpadding="0" cellspacing="0">',
    ...rows,
    '</table>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
const body = Array.from(
  { length: 30 },
  (_, i) => `<tr><td style="padding:8px;color:#111827">Paragraph ${i + 1} of the spring sale.</td></tr>`,
);
const changedText = (segments: Segment[]) => segments.filter((s) => s.changed).map((s) => s.text);
const notSame = (rows: DiffRow[]) => rows.filter((r) => r.kind !== 'same');

describe('source diff of two versions', () => {
  it('reports nothing for equal sources', () => {
    const diff = diffSources(email(body), email(body));
    expect(notSame(diff.rows)).toEqual([]);
    expect(diff).toMatchObject({ added: 0, removed: 0, changed: 0, tooDifferent: false });
    expect(diff.rows).toHaveLength(37);
  });

  it('reports a changed word as exactly that word, on exactly that line', () => {
    const after = [...body];
    after[11] = after[11]!.replace('spring', 'summer');
    const diff = diffSources(email(body), email(after));
    const changed = notSame(diff.rows);
    expect(changed).toHaveLength(1);
    const row = changed[0]!;
    if (row.kind !== 'changed') throw new Error(`expected a changed line, got ${row.kind}`);
    expect(row.left.number).toBe(16);
    expect(row.right.number).toBe(16);
    expect(changedText(row.left.segments)).toEqual(['spring']);
    expect(changedText(row.right.segments)).toEqual(['summer']);
    // The rest of the line is there, unchanged.
    expect(row.right.segments.map((s) => s.text).join('')).toBe(after[11]);
    expect(diff).toMatchObject({ added: 0, removed: 0, changed: 1 });
  });

  it('reports an inserted banner as only its lines, not everything after it', () => {
    const banner = [
      '<tr><td style="background:#4f46e5;padding:16px">',
      '  <a href="https://shop.example.com/sale" style="color:#ffffff">Sale ends Sunday</a>',
      '</td></tr>',
    ];
    const after = [...body.slice(0, 3), ...banner, ...body.slice(3)];
    const diff = diffSources(email(body), email(after));
    const changed = notSame(diff.rows);
    expect(changed.map((r) => r.kind)).toEqual(['added', 'added', 'added']);
    expect(
      changed.map((r) => (r.kind === 'added' ? r.right.segments.map((s) => s.text).join('') : '')),
    ).toEqual(banner);
    expect(diff).toMatchObject({ added: 3, removed: 0, changed: 0 });
    // The lines below the banner are the same lines, three numbers further down on the right.
    const last = diff.rows.findLast((r) => r.kind === 'same')!;
    expect(last.kind === 'same' && [last.left.number, last.right.number]).toEqual([37, 40]);
  });

  it('keeps an inserted banner an added line when every line below it changed too', () => {
    const after = body.map((l) => l.replace('color:#111827', 'color:#b91c1c'));
    after.splice(3, 0, '<tr><td style="background:#4f46e5;color:#ffffff">Sale ends Sunday</td></tr>');
    const diff = diffSources(email(body), email(after));
    expect(diff).toMatchObject({ added: 1, removed: 0, changed: 30 });
    const added = diff.rows.filter((r) => r.kind === 'added');
    expect(added.map((r) => r.kind === 'added' && r.right.number)).toEqual([8]);
    // Each changed line meets its own new version: only the colour differs.
    for (const row of diff.rows) {
      if (row.kind !== 'changed') continue;
      expect(changedText(row.left.segments)).toEqual(['111827']);
      expect(changedText(row.right.segments)).toEqual(['b91c1c']);
    }
  });

  it('reports a colour change as exactly that attribute value', () => {
    const after = [...body];
    after[4] = after[4]!.replace('color:#111827', 'color:#b91c1c');
    const diff = diffSources(email(body), email(after));
    const changed = notSame(diff.rows);
    expect(changed).toHaveLength(1);
    const row = changed[0]!;
    if (row.kind !== 'changed') throw new Error(`expected a changed line, got ${row.kind}`);
    expect(changedText(row.left.segments)).toEqual(['111827']);
    expect(changedText(row.right.segments)).toEqual(['b91c1c']);
    // …inside the style attribute: what comes before the change ends with it.
    const before = row.right.segments[0]!;
    expect(before.changed).toBe(false);
    expect(before.text.endsWith('style="padding:8px;color:#')).toBe(true);
  });

  it('shows a removed line as removed, and the inline view as old then new lines', () => {
    const after = body.filter((_, i) => i !== 2);
    after[0] = after[0]!.replace('Paragraph 1', 'Paragraph one');
    const diff = diffSources(email(body), email(after));
    expect(notSame(diff.rows).map((r) => r.kind)).toEqual(['changed', 'removed']);
    const inline = inlineLines(diff.rows).filter((l) => l.kind !== 'same');
    expect(inline.map((l) => l.kind)).toEqual(['removed', 'added', 'removed']);
    expect(changedText(inline[0]!.segments)).toEqual(['1']);
    expect(changedText(inline[1]!.segments)).toEqual(['one']);
  });

  it('diffs two 100 KB versions and keeps every line', () => {
    const big = Array.from(
      { length: 1200 },
      (_, i) => `<p style="margin:0 0 12px">Line ${i} of a long newsletter body.</p>`,
    );
    const changedBig = big.map((l, i) => (i % 100 === 50 ? l.replace('long', 'longer') : l));
    const left = email(big);
    expect(left.length).toBeGreaterThan(60_000);
    // Its time is the bench's to measure; the worker's budgets bound it in the browser.
    const diff = diffSources(left, email(changedBig));
    expect(diff.changed).toBe(12);
    expect(diff.rows).toHaveLength(1207);
  });

  it('shows a minified email (one long line) by its changed words, its unchanged stretches left out', () => {
    let tables = '';
    for (let n = 0; tables.length < 200_000; n++)
      tables += `<table width="600"><tr><td style="padding:8px"><p style="margin:0">Story ${n}: a paragraph <a href="https://example.com/${n}">a link</a>.</p></td></tr></table>`;
    const left = `<!DOCTYPE html><html><body>${tables}</body></html>`;
    const right = left
      .replace('Story 100:', 'Story one hundred:')
      .replace('Story 1000:', 'Story one thousand:');
    const diff = diffSources(left, right);
    expect(diff).toMatchObject({ changed: 1, added: 0, removed: 0, tooDifferent: false });
    const row = diff.rows[0]!;
    if (row.kind !== 'changed') throw new Error(row.kind);
    expect(changedText(row.left.segments)).toEqual(['100', '1000']);
    expect(changedText(row.right.segments)).toEqual(['one hundred', 'one thousand']);
    // Each change with LINE_CONTEXT characters either side; the rest counted, not shown.
    const shape = (segments: Segment[]) =>
      segments.map((s) => (s.elided !== undefined ? 'elided' : s.changed ? 'changed' : s.text.length));
    expect(shape(row.left.segments)).toEqual([
      'elided',
      LINE_CONTEXT,
      'changed',
      LINE_CONTEXT,
      'elided',
      LINE_CONTEXT,
      'changed',
      LINE_CONTEXT,
      'elided',
    ]);
    const shown = (segments: Segment[]) => segments.reduce((n, s) => n + s.text.length + (s.elided ?? 0), 0);
    expect(shown(row.left.segments)).toBe(left.length);
    expect(shown(row.right.segments)).toBe(right.length);
    // An unchanged long line shows its start and end.
    const same = diffSources(`${left}\n<p>a</p>`, `${left}\n<p>b</p>`).rows[0]!;
    expect(same.kind).toBe('same');
    if (same.kind === 'same')
      expect(shape(same.left.segments)).toEqual([LINE_CONTEXT, 'elided', LINE_CONTEXT]);
    // A line under LONG_LINE is shown whole.
    const short = 'x'.repeat(LONG_LINE - 10);
    const first = diffSources(`${short}\n<p>a</p>`, `${short}\n<p>b</p>`).rows[0]!;
    expect(first.kind === 'same' && first.left.segments).toEqual([{ text: short, changed: false }]);
  });
});

describe('line endings in the source diff', () => {
  /** Each changed row's ending marks, left and right: what the reader sees beside the line. */
  const ends = (rows: DiffRow[]) =>
    rows.flatMap((r) =>
      r.kind === 'changed'
        ? [[r.left.segments.find((s) => s.end)?.end, r.right.segments.find((s) => s.end)?.end]]
        : [],
    );
  /** Whether every counted line shows a marked change on each side it has. */
  const everyChangeMarked = (rows: DiffRow[]) =>
    rows.every((r) => {
      if (r.kind === 'same') return true;
      const marked = (segments: Segment[]) => segments.some((s) => s.changed);
      if (r.kind === 'removed') return marked(r.left.segments);
      if (r.kind === 'added') return marked(r.right.segments);
      return marked(r.left.segments) && marked(r.right.segments);
    });

  it('marks a CR LF that replaced an LF, and the newline added at the end, and says only they changed', () => {
    const diff = diffSources('<p>a</p>\n<p>b</p>', '<p>a</p>\r\n<p>b</p>\n');
    expect(diff).toMatchObject({ added: 0, removed: 0, changed: 2, endings: 2 });
    expect(ends(diff.rows)).toEqual([
      ['lf', 'crlf'],
      ['none', 'lf'],
    ]);
    expect(everyChangeMarked(diff.rows)).toBe(true);
    // The words are the same, and shown unmarked.
    const row = diff.rows[0]!;
    if (row.kind !== 'changed') throw new Error(row.kind);
    expect(row.left.segments[0]).toEqual({ text: '<p>a</p>', changed: false });
    expect(summaryOf(diff, 'source as written')).toBe('2 lines changed (only their line endings).');
  });

  it('marks the newline taken from the end of a text', () => {
    const diff = diffSources('<p>a</p>\n<p>b</p>\n', '<p>a</p>\n<p>b</p>');
    expect(diff).toMatchObject({ changed: 1, endings: 1 });
    expect(ends(diff.rows)).toEqual([['lf', 'none']]);
    expect(everyChangeMarked(diff.rows)).toBe(true);
    expect(summaryOf(diff, 'source as written')).toBe('1 line changed (only its line ending).');
  });

  it('marks the ending beside the changed words of a line whose words changed too', () => {
    const diff = diffSources('<p>a</p>\r\n<p>b</p>\r\n', '<p>a</p>\r\n<p>c</p>\n');
    expect(diff).toMatchObject({ changed: 1, endings: 0 });
    const row = diff.rows.find((r) => r.kind === 'changed')!;
    if (row.kind !== 'changed') throw new Error(row.kind);
    expect(changedText(row.left.segments)).toEqual(['b', '']);
    expect(row.left.segments.at(-1)).toEqual({ text: '', changed: true, end: 'crlf' });
    expect(row.right.segments.at(-1)).toEqual({ text: '', changed: true, end: 'lf' });
    expect(summaryOf(diffSources('x\ny\nthe spring sale', 'x\r\ny\nthe summer sale'), 'text')).toBe(
      '2 lines changed (1 only in its line ending).',
    );
  });

  it('keeps equal endings unmarked, and a file converted to CR LF whole as that', () => {
    const lf = email(body);
    expect(diffSources(lf, lf).rows.some((r) => r.kind !== 'same')).toBe(false);
    const crlf = lf.replaceAll('\n', '\r\n');
    const diff = diffSources(lf, crlf);
    expect(diff).toMatchObject({ changed: 37, endings: 37, added: 0, removed: 0 });
    expect(everyChangeMarked(diff.rows)).toBe(true);
    // Lines that differ in nothing else keep their own text: no CR shows up inside the line.
    const row = diff.rows[0]!;
    if (row.kind !== 'changed') throw new Error(row.kind);
    expect(row.right.segments.map((s) => s.text).join('')).toBe('<!doctype html>');
  });

  it('says "no differences in" what it compared, never that the versions are the same', () => {
    expect(summaryOf(diffSources('a\n', 'a\n'), 'plain-text part')).toBe(
      'No differences in the plain-text part.',
    );
  });
});
