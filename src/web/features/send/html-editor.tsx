import { html } from '@codemirror/lang-html';
import { Prec } from '@codemirror/state';
import { EditorView, keymap, placeholder as placeholderExt } from '@codemirror/view';
import CodeMirror from '@uiw/react-codemirror';
import { useEffect, useMemo, useRef } from 'react';
import { useTheme } from '../../lib/theme.ts';
import { editorTheme } from './editor-theme.ts';

const EDITOR_PLACEHOLDER = `<h1>Hello from Proofmail</h1>
<p>Paste or write your HTML email here, then send a test to your inbox.</p>`;

export interface HtmlEditorProps {
  id: string;
  value: string;
  onChange: (value: string) => void;
  /** Ctrl/Cmd+Enter inside the editor. */
  onSubmit?: () => void;
  invalid?: boolean;
  describedBy?: string;
  /** Moves the cursor to this 1-based line and focuses the editor (a new object each time). */
  goTo?: { line: number } | null;
}

/** CodeMirror with HTML highlighting; this module is its own lazy chunk (only /app/send loads it). */
export default function HtmlEditor({
  id,
  value,
  onChange,
  onSubmit,
  invalid,
  describedBy,
  goTo,
}: HtmlEditorProps) {
  const [theme] = useTheme();
  const viewRef = useRef<EditorView | null>(null);
  useEffect(() => {
    const view = viewRef.current;
    if (!goTo || !view) return;
    const line = view.state.doc.line(Math.min(Math.max(1, goTo.line), view.state.doc.lines));
    view.dispatch({
      selection: { anchor: line.from },
      effects: EditorView.scrollIntoView(line.from, { y: 'center' }),
    });
    view.focus();
  }, [goTo]);
  const submitRef = useRef(onSubmit);
  submitRef.current = onSubmit;
  const extensions = useMemo(
    () => [
      html(),
      placeholderExt(EDITOR_PLACEHOLDER),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({
        id,
        'aria-label': 'HTML Content',
        'aria-multiline': 'true',
        ...(describedBy ? { 'aria-describedby': describedBy } : {}),
        ...(invalid ? { 'aria-invalid': 'true' } : {}),
      }),
      Prec.highest(
        keymap.of([
          {
            key: 'Mod-Enter',
            run: () => {
              submitRef.current?.();
              return true;
            },
          },
        ]),
      ),
    ],
    [id, describedBy, invalid],
  );
  return (
    <div
      className={
        'overflow-hidden rounded-lg border text-sm shadow-xs focus-within:outline-2 focus-within:outline-brand-500/40 ' +
        (invalid ? 'border-red-500 dark:border-red-400' : 'border-slate-300 dark:border-slate-700')
      }
      data-testid="html-editor"
    >
      <CodeMirror
        value={value}
        height="400px"
        theme={editorTheme(theme)}
        extensions={extensions}
        onChange={onChange}
        onCreateEditor={(view) => {
          viewRef.current = view;
        }}
        basicSetup={{ foldGutter: true, highlightActiveLine: true, autocompletion: true }}
      />
    </div>
  );
}
