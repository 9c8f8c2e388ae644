import { diffArrays, diffLines, diffWordsWithSpace, type ChangeObject } from 'diff';

/**
 * The source diff of two versions (docs/decisions/0077-source-diff-in-a-browser-worker.md): lines
 * with jsdiff's Myers diff, then words inside each changed line. Pure, so it runs in a Web Worker
 * (diff.worker.ts) and in unit tests alike.
 */

/** How a line ends: LF, CR LF, or not at all (the last line of a text without a final newline). */
export type LineEnd = 'lf' | 'crlf' | 'none';

/** A run of text on a line; `changed` marks the words that differ from the other side. */
export interface Segment {
  text: string;
  changed: boolean;
  /** Characters of an unchanged stretch of a long line left out here (`text` is then empty). */
  elided?: number;
  /**
   * The line's ending, where it differs from the paired line's (`text` is then empty, `changed`
   * true): the one change of a line whose words are the same is visible, not an unmarked row.
   */
  end?: LineEnd;
}

export interface DiffLine {
  /** 1-based line number on its side. */
  number: number;
  segments: Segment[];
}

/**
 * One row of the side-by-side view. `changed` pairs a line of the left with the line of the right
 * that replaced it (word-level segments); `removed` and `added` lines have no counterpart.
 */
export type DiffRow =
  | { kind: 'same'; left: DiffLine; right: DiffLine }
  | { kind: 'changed'; left: DiffLine; right: DiffLine }
  | { kind: 'removed'; left: DiffLine }
  | { kind: 'added'; right: DiffLine };

export interface SourceDiff {
  rows: DiffRow[];
  /** Lines only on the right, only on the left, and changed in place. */
  added: number;
  removed: number;
  changed: number;
  /** Of the changed lines, those whose only change is their ending (LF, CR LF, the final newline). */
  endings: number;
  /** The line diff ran out of time: every line is shown as removed, then added. */
  tooDifferent: boolean;
}

/** Time budgets: a diff that needs longer is shown coarser rather than freezing the tab. */
const LINE_DIFF_MS = 3000;
const WORD_DIFF_MS = 300;

interface Line {
  text: string;
  end: LineEnd;
}

/**
 * A text's lines as jsdiff's line diff cuts them (at LF and CR LF), each with its ending: the
 * ending is part of what the line diff compares, so a row paired for it must be able to show it.
 */
function splitLines(value: string): Line[] {
  const parts = value.split('\n');
  const last = parts.pop()!;
  const lines: Line[] = parts.map((l) =>
    l.endsWith('\r') ? { text: l.slice(0, -1), end: 'crlf' } : { text: l, end: 'lf' },
  );
  if (last !== '') lines.push({ text: last, end: 'none' });
  return lines;
}

const whole = (text: string, changed: boolean): Segment[] => (text ? [{ text, changed }] : []);

/** Merges neighbouring segments with the same flag (jsdiff may split a run in several tokens). */
function push(segments: Segment[], text: string, changed: boolean): void {
  if (!text) return;
  const last = segments[segments.length - 1];
  if (last && last.changed === changed) last.text += text;
  else segments.push({ text, changed });
}

/**
 * A line longer than this (minified HTML: a build's output, an ESP's export, often one line of
 * hundreds of kilobytes) is word-diffed by the part between its common start and end, and shown
 * only around its changes.
 */
export const LONG_LINE = 10_000;
/** Characters of a long line kept on show either side of a change. */
export const LINE_CONTEXT = 200;

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** Where the two lines stop being the same from the start and from the end, at word edges. */
function commonEnds(left: string, right: string): { start: number; end: number } {
  const max = Math.min(left.length, right.length);
  let start = 0;
  while (start < max && left.charCodeAt(start) === right.charCodeAt(start)) start++;
  let end = 0;
  while (
    end < max - start &&
    left.charCodeAt(left.length - 1 - end) === right.charCodeAt(right.length - 1 - end)
  )
    end++;
  // Not inside a word: the word diff compares whole words.
  while (start > 0 && WORD_CHAR.test(left[start - 1]!)) start--;
  while (end > 0 && WORD_CHAR.test(left[left.length - end]!)) end--;
  return { start, end };
}

/**
 * A long line's unchanged stretches cut to LINE_CONTEXT characters beside each change (and at the
 * line's start and end when nothing changed), the rest counted in an `elided` segment. Short lines
 * are returned as they are.
 */
export function elideLong(segments: Segment[]): Segment[] {
  if (segments.reduce((n, s) => n + s.text.length, 0) <= LONG_LINE) return segments;
  const out: Segment[] = [];
  const last = segments.length - 1;
  segments.forEach((segment, i) => {
    const keepHead = i > 0 || last === 0 ? LINE_CONTEXT : 0;
    const keepTail = i < last || last === 0 ? LINE_CONTEXT : 0;
    const cut = segment.text.length - keepHead - keepTail;
    if (segment.changed || cut <= LINE_CONTEXT) return void out.push(segment);
    if (keepHead) out.push({ text: segment.text.slice(0, keepHead), changed: false });
    out.push({ text: '', changed: false, elided: cut });
    if (keepTail) out.push({ text: segment.text.slice(-keepTail), changed: false });
  });
  return out;
}

/** Appends the word diff of `left` and `right` to each side's segments (all changed when it runs out of time). */
function pushWords(l: Segment[], r: Segment[], left: string, right: string): void {
  const parts: ChangeObject<string>[] | undefined = diffWordsWithSpace(left, right, {
    timeout: WORD_DIFF_MS,
  });
  if (!parts) {
    push(l, left, true);
    push(r, right, true);
    return;
  }
  for (const part of parts) {
    if (!part.added) push(l, part.value, part.removed);
    if (!part.removed) push(r, part.value, part.added);
  }
}

/** A long line in pieces that each end with a tag's `>`: minified HTML's own "lines". */
const tagPieces = (text: string) => text.split(/(?<=>)/);

/**
 * The changed middle of two long lines: the pieces between tags diffed first (thousands of pieces,
 * where a word diff of hundreds of kilobytes runs out of time), then the words of each run of
 * pieces that replaced another.
 */
function pushLongMiddle(l: Segment[], r: Segment[], left: string, right: string): void {
  const runs = diffArrays(tagPieces(left), tagPieces(right), { timeout: WORD_DIFF_MS });
  if (!runs) return pushWords(l, r, left, right);
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i]!;
    const text = run.value.join('');
    const next = runs[i + 1];
    if (run.removed && next?.added) {
      pushWords(l, r, text, next.value.join(''));
      i++;
    } else if (run.removed) push(l, text, true);
    else if (run.added) push(r, text, true);
    else {
      push(l, text, false);
      push(r, text, false);
    }
  }
}

/** Word-level segments of a line and the line that replaced it. */
export function diffWordsOfLine(left: string, right: string): { left: Segment[]; right: Segment[] } {
  if (Math.max(left.length, right.length) <= LONG_LINE) {
    const l: Segment[] = [];
    const r: Segment[] = [];
    pushWords(l, r, left, right);
    return { left: l, right: r };
  }
  const { start, end } = commonEnds(left, right);
  const head = left.slice(0, start);
  const l = whole(head, false);
  const r = whole(head, false);
  pushLongMiddle(l, r, left.slice(start, left.length - end), right.slice(start, right.length - end));
  const tail = left.slice(left.length - end);
  push(l, tail, false);
  push(r, tail, false);
  return { left: elideLong(l), right: elideLong(r) };
}

/** Two lines are one line edited when at least this share of their words is common. */
const LIKENESS = 0.5;
/** Blocks larger than this (lines × lines) are paired in order instead, to bound the work. */
const MAX_ALIGN_CELLS = 250_000;

function words(line: string): string[] {
  return line.split(/[^\p{L}\p{N}_#]+/u).filter(Boolean);
}

/** Dice coefficient of the two lines' words (as multisets): 1 for the same words, 0 for none in common. */
function likeness(a: string[], b: string[]): number {
  if (a.length + b.length === 0) return 1;
  const counts = new Map<string, number>();
  for (const w of a) counts.set(w, (counts.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of b) {
    const n = counts.get(w) ?? 0;
    if (n > 0) {
      common++;
      counts.set(w, n - 1);
    }
  }
  return (2 * common) / (a.length + b.length);
}

type Step = { left?: string; right?: string };

/**
 * Pairs the lines of a removed block with those of the added block that replaced it, in order,
 * maximising the summed likeness of the pairs (lines too unlike stay unpaired): a banner inserted
 * among edited lines is an added line, and each edited line meets its own new version.
 */
export function alignBlock(left: string[], right: string[]): Step[] {
  const n = left.length;
  const m = right.length;
  if (n * m > MAX_ALIGN_CELLS) {
    const steps: Step[] = [];
    for (let k = 0; k < Math.max(n, m); k++) steps.push({ left: left[k], right: right[k] });
    return steps;
  }
  const lw = left.map(words);
  const rw = right.map(words);
  const sim = (i: number, j: number) => likeness(lw[i]!, rw[j]!);
  // score[i][j]: the best sum for left[i..] and right[j..].
  const score = Array.from({ length: n + 1 }, () => new Float64Array(m + 1));
  const pairScore = Array.from({ length: n }, () => new Float64Array(m));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const s = sim(i, j);
      pairScore[i]![j] = s;
      const pair = s >= LIKENESS ? s + score[i + 1]![j + 1]! : -1;
      score[i]![j] = Math.max(pair, score[i + 1]![j]!, score[i]![j + 1]!);
    }
  }
  const steps: Step[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    const s = pairScore[i]![j]!;
    if (s >= LIKENESS && score[i]![j] === s + score[i + 1]![j + 1]!) {
      steps.push({ left: left[i], right: right[j] });
      i++;
      j++;
    } else if (score[i]![j] === score[i + 1]![j]) {
      steps.push({ left: left[i] });
      i++;
    } else {
      steps.push({ right: right[j] });
      j++;
    }
  }
  for (; i < n; i++) steps.push({ left: left[i] });
  for (; j < m; j++) steps.push({ right: right[j] });
  return steps;
}

export function diffSources(leftText: string, rightText: string): SourceDiff {
  const rows: DiffRow[] = [];
  let leftNo = 0;
  let rightNo = 0;
  const result = { rows, added: 0, removed: 0, changed: 0, endings: 0, tooDifferent: false };
  const same = ({ text }: Line) => {
    const segments = elideLong(whole(text, false));
    rows.push({
      kind: 'same',
      left: { number: ++leftNo, segments },
      right: { number: ++rightNo, segments },
    });
  };
  const removed = ({ text }: Line) => {
    result.removed++;
    rows.push({ kind: 'removed', left: { number: ++leftNo, segments: whole(text, true) } });
  };
  const added = ({ text }: Line) => {
    result.added++;
    rows.push({ kind: 'added', right: { number: ++rightNo, segments: whole(text, true) } });
  };
  const paired = (left: Line, right: Line) => {
    // Pairs come from blocks the line diff found different, line ends included; a pair equal in
    // both (blocks too large to align are paired in order) is an unchanged line.
    if (left.text === right.text && left.end === right.end) return same(left);
    const words = diffWordsOfLine(left.text, right.text);
    result.changed++;
    if (left.end !== right.end) {
      if (!words.left.some((s) => s.changed) && !words.right.some((s) => s.changed)) result.endings++;
      words.left.push({ text: '', changed: true, end: left.end });
      words.right.push({ text: '', changed: true, end: right.end });
    }
    rows.push({
      kind: 'changed',
      left: { number: ++leftNo, segments: words.left },
      right: { number: ++rightNo, segments: words.right },
    });
  };

  const changes = diffLines(leftText, rightText, { timeout: LINE_DIFF_MS });
  if (!changes) {
    splitLines(leftText).forEach(removed);
    splitLines(rightText).forEach(added);
    return { ...result, tooDifferent: true };
  }
  for (let i = 0; i < changes.length; i++) {
    const change = changes[i]!;
    const lines = splitLines(change.value);
    if (!change.added && !change.removed) {
      lines.forEach(same);
      continue;
    }
    const next = changes[i + 1];
    if (change.removed && next?.added) {
      // A block replaced by another: pair each line with the line that replaced it (by
      // likeness, so a line inserted among edited ones does not shift every pair after it),
      // word-diff each pair; what is left over on either side is removed or added. The steps
      // take each side's lines in order.
      const nextLines = splitLines(next.value);
      let l = 0;
      let r = 0;
      const steps = alignBlock(
        lines.map((line) => line.text),
        nextLines.map((line) => line.text),
      );
      for (const step of steps) {
        if (step.left !== undefined && step.right !== undefined) paired(lines[l++]!, nextLines[r++]!);
        else if (step.left !== undefined) removed(lines[l++]!);
        else if (step.right !== undefined) added(nextLines[r++]!);
      }
      i++;
      continue;
    }
    if (change.removed) lines.forEach(removed);
    else lines.forEach(added);
  }
  return result;
}

/**
 * The diff in a sentence. "The same" is not said here: the texts of one tab may be equal while
 * other things the versions were written or sent with differ (compare-page.tsx says when nothing does).
 */
export function summaryOf(diff: SourceDiff, what: string): string {
  if (diff.added + diff.removed + diff.changed === 0) return `No differences in the ${what}.`;
  const parts: string[] = [];
  const n = (count: number, noun: string) => `${count.toLocaleString('en-US')} ${noun}`;
  if (diff.changed) {
    let changed = n(diff.changed, diff.changed === 1 ? 'line changed' : 'lines changed');
    // Counted lines whose words are all the same: the sentence says why they are.
    if (diff.endings === diff.changed)
      changed += diff.changed === 1 ? ' (only its line ending)' : ' (only their line endings)';
    else if (diff.endings)
      changed += ` (${n(diff.endings, diff.endings === 1 ? 'only in its line ending' : 'only in their line endings')})`;
    parts.push(changed);
  }
  if (diff.added) parts.push(n(diff.added, diff.added === 1 ? 'line added' : 'lines added'));
  if (diff.removed) parts.push(n(diff.removed, diff.removed === 1 ? 'line removed' : 'lines removed'));
  return `${parts.join(', ')}.`;
}

/** The inline view's lines: each row once, a changed row as its old line then its new line. */
export type InlineLine =
  | { kind: 'same'; left: number; right: number; segments: Segment[] }
  | { kind: 'removed'; left: number; segments: Segment[] }
  | { kind: 'added'; right: number; segments: Segment[] };

export function inlineLines(rows: DiffRow[]): InlineLine[] {
  const out: InlineLine[] = [];
  for (const row of rows) {
    if (row.kind === 'same') {
      out.push({ kind: 'same', left: row.left.number, right: row.right.number, segments: row.left.segments });
    } else {
      if (row.kind !== 'added')
        out.push({ kind: 'removed', left: row.left.number, segments: row.left.segments });
      if (row.kind !== 'removed')
        out.push({ kind: 'added', right: row.right.number, segments: row.right.segments });
    }
  }
  return out;
}
