import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { describe, expect, it } from 'vitest';
import { LONG_LINE, wrapShortLines } from './wrap-short-lines.ts';

const wraps = (state: EditorState) =>
  state
    .facet(EditorView.contentAttributes)
    .some((attrs) => typeof attrs !== 'function' && attrs.class === 'cm-lineWrapping');
const open = (doc: string) => EditorState.create({ doc, extensions: [wrapShortLines] });
const long = 'x'.repeat(LONG_LINE + 1);

describe('wrapShortLines', () => {
  it('wraps a document of short lines, and not one opened with a long line (an email to edit again)', () => {
    expect(wraps(open('<p>a</p>\n<p>b</p>'))).toBe(true);
    expect(wraps(open('x'.repeat(LONG_LINE)))).toBe(true);
    expect(wraps(open(`<p>a</p>\n${long}\n<p>b</p>`))).toBe(false);
  });

  it('follows the changes: a line made long, typing beside it, and the last long line made short', () => {
    let state = open('<p>a</p>\n<p>b</p>');
    state = state.update({ changes: { from: 9, insert: long } }).state;
    expect(wraps(state)).toBe(false);
    state = state.update({ changes: { from: 0, insert: '<h1>Title</h1>\n' } }).state;
    expect(wraps(state)).toBe(false);
    // Two long lines: the one it knew of made short, it finds the other, still unwrapped.
    state = state.update({ changes: { from: state.doc.length, insert: `\n${long}` } }).state;
    const first = state.doc.line(3);
    expect(first.length).toBeGreaterThan(LONG_LINE);
    state = state.update({ changes: { from: first.from, to: first.from + LONG_LINE } }).state;
    expect(state.doc.line(3).length).toBeLessThan(LONG_LINE);
    expect(wraps(state)).toBe(false);
    const last = state.doc.line(state.doc.lines);
    state = state.update({ changes: { from: last.from, to: last.to } }).state;
    expect(wraps(state)).toBe(true);
  });
});
