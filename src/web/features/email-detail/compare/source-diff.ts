import { diffLines, diffWordsWithSpace, type ChangeObject } from 'diff';

/**
 * The source diff of two versions (docs/decisions/0077-source-diff-in-a-browser-worker.md): lines
 * with jsdiff's Myers diff, then words inside each changed line. Pure, so it runs in a Web Worker
 * (diff.worker.ts) and in unit tests alike.
 */

/** A run of text on a line; `changed` marks the words that differ from the other side. */
export interface Segment {
  text: string;
  changed: boolean;
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
  /** The line diff ran out of time: every line is shown as removed, then added. */
  tooDifferent: boolean;
}

/** Time budgets: a diff that needs longer is shown coarser rather than freezing the tab. */
const LINE_DIFF_MS = 3000;
const WORD_DIFF_MS = 300;

function splitLines(value: string): string[] {
  const lines = value.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

const whole = (text: string, changed: boolean): Segment[] => (text ? [{ text, changed }] : []);

/** Merges neighbouring segments with the same flag (jsdiff may split a run in several tokens). */
function push(segments: Segment[], text: string, changed: boolean): void {
  if (!text) return;
  const last = segments[segments.length - 1];
  if (last && last.changed === changed) last.text += text;
  else segments.push({ text, changed });
}

/** Word-level segments of a line and the line that replaced it. */
export function diffWordsOfLine(left: string, right: string): { left: Segment[]; right: Segment[] } {
  const parts: ChangeObject<string>[] | undefined = diffWordsWithSpace(left, right, {
    timeout: WORD_DIFF_MS,
  });
  if (!parts) return { left: whole(left, true), right: whole(right, true) };
  const l: Segment[] = [];
  const r: Segment[] = [];
  for (const part of parts) {
    if (!part.added) push(l, part.value, part.removed);
    if (!part.removed) push(r, part.value, part.added);
  }
  return { left: l, right: r };
}

export function diffSources(leftText: string, rightText: string): SourceDiff {
  const rows: DiffRow[] = [];
  let leftNo = 0;
  let rightNo = 0;
  const result = { rows, added: 0, removed: 0, changed: 0, tooDifferent: false };
  const same = (text: string) => {
    rows.push({
      kind: 'same',
      left: { number: ++leftNo, segments: whole(text, false) },
      right: { number: ++rightNo, segments: whole(text, false) },
    });
  };
  const removed = (text: string) => {
    result.removed++;
    rows.push({ kind: 'removed', left: { number: ++leftNo, segments: whole(text, true) } });
  };
  const added = (text: string) => {
    result.added++;
    rows.push({ kind: 'added', right: { number: ++rightNo, segments: whole(text, true) } });
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
      // A block replaced by another: pair their lines in order, word-diff each pair; what is
      // left over on either side is removed or added.
      const after = splitLines(next.value);
      const paired = Math.min(lines.length, after.length);
      for (let k = 0; k < paired; k++) {
        const words = diffWordsOfLine(lines[k]!, after[k]!);
        result.changed++;
        rows.push({
          kind: 'changed',
          left: { number: ++leftNo, segments: words.left },
          right: { number: ++rightNo, segments: words.right },
        });
      }
      lines.slice(paired).forEach(removed);
      after.slice(paired).forEach(added);
      i++;
      continue;
    }
    if (change.removed) lines.forEach(removed);
    else lines.forEach(added);
  }
  return result;
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
