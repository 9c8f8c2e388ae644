import { html } from '@codemirror/lang-html';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { Prec } from '@codemirror/state';
import { EditorView, keymap, placeholder as placeholderExt } from '@codemirror/view';
import CodeMirror, { type ReactCodeMirrorRef } from '@uiw/react-codemirror';
import { useEffect, useMemo, useRef } from 'react';
import { useTheme } from '../../lib/theme.ts';
import { editorTheme } from './editor-theme.ts';
import { wrapShortLines } from './wrap-short-lines.ts';

const HTML_PLACEHOLDER = `<h1>Hello from Proofmail</h1>
<p>Paste or write your HTML email here, then send a test to your inbox.</p>`;
const MJML_PLACEHOLDER = `<mjml>
  <mj-body>
    <mj-section><mj-column><mj-text>Hello from Proofmail</mj-text></mj-column></mj-section>
  </mj-body>
</mjml>`;

// As the form's Ctrl+Enter tip (src/web/features/send/send-page.tsx) shows its keys.
const kbd = 'rounded border px-1 font-mono';

/** A problem the server found at a line of the source (MJML, merge tags). */
export interface SourceProblem {
  line: number;
  message: string;
}

export interface HtmlEditorProps {
  id: string;
  value: string;
  onChange: (value: string) => void;
  /** Ctrl/Cmd+Enter inside the editor. */
  onSubmit?: () => void;
  invalid?: boolean;
  describedBy?: string;
  /** The source's language: MJML is XML-like, so both use the HTML mode; the name and hint differ. */
  format?: 'html' | 'mjml';
  /** Marked in the editor at their lines, and listed under it. */
  problems?: SourceProblem[];
  /** Moves the cursor to this 1-based line and focuses the editor (a new object each time). */
  goTo?: { line: number } | null;
}

/**
 * A problem as a sentence of its own (docs/copy-style.md): the engines' texts (MJML's, liquidjs's,
 * the merge-tag fillers') start in lower case and some end without a stop.
 */
export function asSentence(message: string): string {
  const text = message.trim();
  if (!text) return text;
  const capital = text[0]!.toUpperCase() + text.slice(1);
  return /[.!?)]$/.test(capital) ? capital : `${capital}.`;
}

function diagnosticsOf(view: EditorView, problems: SourceProblem[]): Diagnostic[] {
  const { doc } = view.state;
  return problems.map((p) => {
    const line = doc.line(Math.min(Math.max(1, p.line), doc.lines));
    return {
      from: line.from,
      to: Math.max(line.from, line.to),
      severity: 'error',
      message: asSentence(p.message),
    };
  });
}

/** CodeMirror with HTML highlighting; this module is its own lazy chunk (only /app/send loads it). */
export default function HtmlEditor({
  id,
  value,
  onChange,
  onSubmit,
  invalid,
  describedBy,
  format = 'html',
  problems = [],
  goTo,
}: HtmlEditorProps) {
  const [theme] = useTheme();
  const submitRef = useRef(onSubmit);
  submitRef.current = onSubmit;
  const editor = useRef<ReactCodeMirrorRef>(null);
  const label = format === 'mjml' ? 'MJML Content' : 'HTML Content';
  const problemsId = `${id}-problems`;
  const keysId = `${id}-keys`;
  const described = [describedBy, keysId, problems.length > 0 ? problemsId : null].filter(Boolean).join(' ');
  const extensions = useMemo(
    () => [
      // No closing tags of its own when `>` or `</` is typed: they were sent as written, doubled
      // when the user typed them too. Completion still offers the closing tag after `</`, inserted
      // only when picked.
      html({ autoCloseTags: false }),
      lintGutter(),
      placeholderExt(format === 'mjml' ? MJML_PLACEHOLDER : HTML_PLACEHOLDER),
      wrapShortLines,
      EditorView.contentAttributes.of({
        id,
        'aria-label': label,
        'aria-multiline': 'true',
        ...(described ? { 'aria-describedby': described } : {}),
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
    [id, described, invalid, format, label],
  );

  // The server's problems, marked where they are; cleared when it finds none.
  const problemsKey = JSON.stringify(problems);
  useEffect(() => {
    const view = editor.current?.view;
    if (!view) return;
    view.dispatch(setDiagnostics(view.state, diagnosticsOf(view, problems)));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the key stands for the list
  }, [problemsKey, value]);

  const moveTo = (line: number) => {
    const view = editor.current?.view;
    if (!view) return;
    const at = view.state.doc.line(Math.min(Math.max(1, line), view.state.doc.lines));
    view.dispatch({
      selection: { anchor: at.from },
      effects: EditorView.scrollIntoView(at.from, { y: 'center' }),
    });
    view.focus();
  };
  useEffect(() => {
    if (goTo) moveTo(goTo.line);
  }, [goTo]);

  return (
    <div className="space-y-2">
      <div
        className={
          'overflow-hidden rounded-lg border text-sm shadow-xs focus-within:outline-2 focus-within:outline-brand-500/40 ' +
          (invalid ? 'border-red-500 dark:border-red-400' : 'border-slate-300 dark:border-slate-700')
        }
        data-testid="html-editor"
      >
        <CodeMirror
          ref={editor}
          value={value}
          height="400px"
          theme={editorTheme(theme)}
          extensions={extensions}
          onChange={onChange}
          // Tab indents; Escape then Tab (or Shift+Tab) moves on, CodeMirror's own way out, which the
          // hint below tells (docs/decisions/0125-editor-keyboard.md).
          indentWithTab
          basicSetup={{ foldGutter: true, highlightActiveLine: true, autocompletion: true }}
        />
      </div>
      <p id={keysId} className="text-xs text-slate-600 dark:text-slate-400">
        <kbd className={kbd}>Tab</kbd> indents · <kbd className={kbd}>Esc</kbd> then{' '}
        <kbd className={kbd}>Tab</kbd> to move on
      </p>
      {problems.length > 0 ? (
        <ul id={problemsId} className="space-y-1 text-sm" data-testid="source-problems">
          {problems.slice(0, 10).map((p, i) => (
            <li key={i} className="flex gap-2 text-red-700 dark:text-red-300">
              <button
                type="button"
                onClick={() => moveTo(p.line)}
                className="shrink-0 rounded font-mono text-xs font-medium underline decoration-dotted underline-offset-2 hover:text-red-900 dark:hover:text-red-100"
                aria-label={`Go to Line ${p.line}`}
              >
                Line {p.line}
              </button>
              <span className="min-w-0 break-words">{asSentence(p.message)}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
