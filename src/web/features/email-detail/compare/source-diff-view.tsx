import { ChevronsUpDown } from 'lucide-react';
import { useMemo, useState, type ReactNode } from 'react';
import { cx } from '../../../components/ui/cx.ts';
import { Skeleton } from '../../../components/ui/skeleton.tsx';
import { inlineLines, summaryOf, type DiffRow, type LineEnd, type Segment } from './source-diff.ts';
import { useSourceDiff } from './use-source-diff.ts';

export type DiffLayout = 'split' | 'inline';

/** Unchanged lines kept on show around each change; longer unchanged runs fold away. */
const CONTEXT = 3;

const TONE = {
  removed: 'bg-red-50 dark:bg-red-950/40',
  added: 'bg-green-50 dark:bg-green-950/40',
  same: '',
  empty: 'bg-slate-50 dark:bg-slate-900/60',
} as const;
const MARK = {
  removed: 'rounded-sm bg-red-200 text-red-950 dark:bg-red-800/70 dark:text-red-50',
  added: 'rounded-sm bg-green-200 text-green-950 dark:bg-green-800/70 dark:text-green-50',
} as const;

/** A changed line ending, named as editors name it (the status bar of VS Code, git's diff). */
const END_LABEL: Record<LineEnd, string> = {
  lf: 'LF',
  crlf: 'CRLF',
  none: 'No newline at end of file',
};
const END_TITLE: Record<LineEnd, string> = {
  lf: 'This line ends with a line feed (LF, \\n)',
  crlf: 'This line ends with a carriage return and a line feed (CR LF, \\r\\n)',
  none: 'The text ends here, without a newline after its last line',
};

/** A carriage return not ending its line, which a browser would draw as nothing (or a space). */
const visible = (text: string) => (text.includes('\r') ? text.replaceAll('\r', '\u240d') : text);

function Text({ segments, tone }: { segments: Segment[]; tone: 'removed' | 'added' | 'same' }) {
  return (
    <>
      {segments.map((s, i) =>
        s.end !== undefined && tone !== 'same' ? (
          // The line's ending, where it is what changed: a words-equal pair would look the same.
          <mark
            key={i}
            className={cx(
              MARK[tone],
              'ml-2 inline-block px-1 font-sans text-[0.6875rem] leading-4 font-medium whitespace-nowrap',
            )}
            data-change={tone}
            data-end={s.end}
            title={END_TITLE[s.end]}
          >
            {s.end === 'none' ? null : (
              <span aria-hidden="true" className="mr-0.5">
                ↵
              </span>
            )}
            {END_LABEL[s.end]}
          </mark>
        ) : s.elided !== undefined ? (
          // An unchanged stretch of a long line (minified HTML), left out around the changes.
          <span
            key={i}
            data-elided={s.elided}
            className="mx-1 rounded-sm bg-slate-100 px-1.5 text-xs text-slate-600 italic dark:bg-slate-800 dark:text-slate-400"
          >
            … {s.elided.toLocaleString('en-US')} unchanged characters …
          </span>
        ) : s.changed && tone !== 'same' ? (
          <mark key={i} className={MARK[tone]} data-change={tone}>
            {visible(s.text)}
          </mark>
        ) : (
          <span key={i}>{visible(s.text)}</span>
        ),
      )}
    </>
  );
}

// slate-600 / slate-400: at least 4.5:1 on the red and green of changed lines in both themes.
const numberCell =
  'w-12 select-none px-2 text-right align-top text-slate-600 tabular-nums dark:text-slate-400 max-sm:w-9';
const textCell = 'px-3 align-top whitespace-pre-wrap break-all';

/** Which rows show: every changed row and CONTEXT rows around it; the rest fold into runs. */
function foldRows<T>(rows: T[], isSame: (row: T) => boolean, open: Set<number>) {
  const keep = rows.map(() => false);
  rows.forEach((row, i) => {
    if (isSame(row)) return;
    for (let k = Math.max(0, i - CONTEXT); k <= Math.min(rows.length - 1, i + CONTEXT); k++) keep[k] = true;
  });
  const out: ({ row: T; index: number } | { fold: number; count: number })[] = [];
  for (let i = 0; i < rows.length;) {
    if (keep[i] || open.has(i)) {
      out.push({ row: rows[i]!, index: i });
      i++;
      continue;
    }
    let end = i;
    while (end < rows.length && !keep[end]) end++;
    if (end - i <= 2 * CONTEXT) {
      for (let k = i; k < end; k++) out.push({ row: rows[k]!, index: k });
    } else {
      out.push({ fold: i, count: end - i });
    }
    i = end;
  }
  return out;
}

function FoldRow({ count, colSpan, onOpen }: { count: number; colSpan: number; onOpen: () => void }) {
  return (
    <tr className="bg-slate-50 dark:bg-slate-900/60">
      <td colSpan={colSpan} className="p-0">
        <button
          type="button"
          onClick={onOpen}
          className="flex w-full items-center gap-2 px-3 py-1.5 text-left text-xs text-slate-600 hover:bg-slate-100 hover:text-slate-900 dark:text-slate-400 dark:hover:bg-slate-800 dark:hover:text-white"
        >
          <ChevronsUpDown aria-hidden="true" className="size-3.5" />
          Show {count.toLocaleString('en-US')} Unchanged Lines
        </button>
      </td>
    </tr>
  );
}

const isSame = (row: { kind: string }) => row.kind === 'same';

/**
 * A diff table: the rows with long unchanged runs folded (foldRows), a fold opening on click, each
 * shown row drawn by `renderRow`. `columns` are the classes of its four columns.
 */
function FoldedTable<T extends { kind: string }>({
  rows,
  columns,
  testId,
  renderRow,
}: {
  rows: T[];
  columns: [string, string, string, string];
  testId: string;
  renderRow: (row: T, index: number) => ReactNode;
}) {
  const [open, setOpen] = useState<Set<number>>(new Set());
  const shown = useMemo(() => foldRows(rows, isSame, open), [rows, open]);
  const openRun = (from: number, count: number) =>
    setOpen((prev) => new Set([...prev, ...Array.from({ length: count }, (_, k) => from + k)]));
  return (
    <table className="w-full table-fixed border-collapse font-mono text-xs leading-5" data-testid={testId}>
      <colgroup>
        {columns.map((className, i) => (
          <col key={i} className={className || undefined} />
        ))}
      </colgroup>
      <tbody>
        {shown.map((item) =>
          'fold' in item ? (
            <FoldRow
              key={`f${item.fold}`}
              count={item.count}
              colSpan={columns.length}
              onOpen={() => openRun(item.fold, item.count)}
            />
          ) : (
            renderRow(item.row, item.index)
          ),
        )}
      </tbody>
    </table>
  );
}

const NUMBER_COLUMN = 'w-12 max-sm:w-9';

function SplitTable({ rows }: { rows: DiffRow[] }) {
  return (
    <FoldedTable
      rows={rows}
      columns={[NUMBER_COLUMN, '', NUMBER_COLUMN, '']}
      testId="diff-split"
      renderRow={(row, index) => {
        const left = row.kind === 'added' ? null : row.left;
        const right = row.kind === 'removed' ? null : row.right;
        const leftTone = row.kind === 'same' ? 'same' : 'removed';
        const rightTone = row.kind === 'same' ? 'same' : 'added';
        return (
          <tr key={index} data-kind={row.kind}>
            <td className={cx(numberCell, left ? TONE[leftTone] : TONE.empty)}>{left?.number}</td>
            <td
              className={cx(
                textCell,
                'border-r border-slate-200 dark:border-slate-800',
                left ? TONE[leftTone] : TONE.empty,
              )}
              data-side="left"
            >
              {left ? <Text segments={left.segments} tone={leftTone} /> : null}
            </td>
            <td className={cx(numberCell, right ? TONE[rightTone] : TONE.empty)}>{right?.number}</td>
            <td className={cx(textCell, right ? TONE[rightTone] : TONE.empty)} data-side="right">
              {right ? <Text segments={right.segments} tone={rightTone} /> : null}
            </td>
          </tr>
        );
      }}
    />
  );
}

function InlineTable({ rows }: { rows: DiffRow[] }) {
  const lines = useMemo(() => inlineLines(rows), [rows]);
  return (
    <FoldedTable
      rows={lines}
      columns={[NUMBER_COLUMN, NUMBER_COLUMN, 'w-6', '']}
      testId="diff-inline"
      renderRow={(line, index) => (
        <tr key={index} data-kind={line.kind} className={TONE[line.kind]}>
          <td className={numberCell}>{line.kind === 'added' ? '' : line.left}</td>
          <td className={numberCell}>{line.kind === 'removed' ? '' : line.right}</td>
          <td
            className="text-center align-top text-slate-600 select-none dark:text-slate-400"
            aria-hidden="true"
          >
            {line.kind === 'added' ? '+' : line.kind === 'removed' ? '−' : ''}
          </td>
          <td className={textCell}>
            <Text segments={line.segments} tone={line.kind} />
          </td>
        </tr>
      )}
    />
  );
}

/** A source diff of two texts, side by side or inline, word-level inside changed lines. */
export function SourceDiffView({
  left,
  right,
  layout,
  captions,
  what,
}: {
  left: string;
  right: string;
  layout: DiffLayout;
  /** What the two sides are, e.g. "Version 2" and "Version 3". */
  captions: [ReactNode, ReactNode];
  /** What the texts are, for the summary: "No differences in the {what}." */
  what: string;
}) {
  const diff = useSourceDiff(left, right);
  if (!diff) {
    return (
      <div aria-busy="true" aria-label="Comparing" className="space-y-2 p-4">
        <Skeleton className="block h-4 w-64" />
        <Skeleton className="block h-64 w-full" />
      </div>
    );
  }
  return (
    <div className="space-y-3">
      <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="diff-summary" data-message="">
        {summaryOf(diff, what)}
        {diff.tooDifferent
          ? ' These versions differ too much to match line by line; all lines are shown.'
          : ''}
      </p>
      <div className="overflow-hidden rounded-xl ring-1 ring-slate-200 dark:ring-slate-800">
        {layout === 'split' ? (
          <div className="grid grid-cols-2 border-b border-slate-200 bg-slate-50 text-xs font-medium text-slate-600 dark:border-slate-800 dark:bg-slate-900 dark:text-slate-300">
            <div className="border-r border-slate-200 px-3 py-2 dark:border-slate-800">{captions[0]}</div>
            <div className="px-3 py-2">{captions[1]}</div>
          </div>
        ) : (
          <div className="border-b border-slate-200 bg-slate-50 px-3 py-2 text-xs font-medium text-slate-600 dark:border-slate-800 dark:bg-slate-900 dark:text-slate-300">
            {captions[0]} → {captions[1]}
          </div>
        )}
        <div className="overflow-x-auto bg-white text-slate-800 dark:bg-slate-950 dark:text-slate-200">
          {layout === 'split' ? <SplitTable rows={diff.rows} /> : <InlineTable rows={diff.rows} />}
        </div>
      </div>
    </div>
  );
}
