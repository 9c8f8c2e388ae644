import { StateField, type Text } from '@codemirror/state';
import { EditorView } from '@codemirror/view';

/**
 * Line wrapping, but not while the document has a line this long: minified HTML (a build's output,
 * an ESP's export) is often one line of hundreds of kilobytes, and wrapped, CodeMirror lays the
 * whole line out again on every keystroke (about 100 ms a key at 400 KB, against 34 ms unwrapped,
 * where it draws only what is on screen). A line this long is not read by wrapping it anyway.
 */
export const LONG_LINE = 10_000;

/** The start of the first line of `doc` longer than LONG_LINE among lines `first`..`last`, or null. */
function longLineIn(doc: Text, first = 1, last = doc.lines): number | null {
  if (doc.length <= LONG_LINE) return null;
  for (let n = first; n <= last; n++) {
    const line = doc.line(n);
    if (line.length > LONG_LINE) return line.from;
  }
  return null;
}

/**
 * Where a line too long to wrap starts, or null: kept up to date from what each change touched,
 * and the whole document looked at again only when the long line it knew of is long no more.
 */
export const wrapShortLines = StateField.define<number | null>({
  create: (state) => longLineIn(state.doc),
  update(at, tr) {
    if (!tr.docChanged) return at;
    const doc = tr.newDoc;
    if (at !== null) {
      const line = doc.lineAt(tr.changes.mapPos(at));
      return line.length > LONG_LINE ? line.from : longLineIn(doc);
    }
    let found: number | null = null;
    tr.changes.iterChangedRanges((_fromA, _toA, fromB, toB) => {
      found ??= longLineIn(doc, doc.lineAt(fromB).number, doc.lineAt(toB).number);
    });
    return found;
  },
  // What EditorView.lineWrapping is, given only while no line is too long.
  provide: (field) =>
    EditorView.contentAttributes.compute([field], (state): Record<string, string> =>
      state.field(field) === null ? { class: 'cm-lineWrapping' } : {},
    ),
});
