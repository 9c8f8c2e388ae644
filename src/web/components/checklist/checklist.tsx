import { ChevronRight, CircleAlert, CircleCheck, CircleMinus, Info, TriangleAlert } from 'lucide-react';
import { Fragment, useState, type ReactNode } from 'react';
import type { Check, Finding } from '../../../shared/contract/checks.ts';
import { countFindings } from '../../lib/checklist-summary.ts';
import { Badge, type BadgeColor } from '../ui/badge.tsx';
import { cx } from '../ui/cx.ts';

/**
 * The pre-send checklist (src/shared/contract/checks.ts): one row per check with its status, which
 * opens to its findings (message, hint, the element and its line in the HTML as sent). Used by the
 * composer and the email detail page.
 */

const STATUS: Record<Check['status'], { label: string; color: BadgeColor; icon: ReactNode }> = {
  pass: {
    label: 'Passed',
    color: 'green',
    icon: <CircleCheck aria-hidden="true" className="size-4 text-green-600 dark:text-green-400" />,
  },
  warning: {
    label: 'Warning',
    color: 'yellow',
    icon: <TriangleAlert aria-hidden="true" className="size-4 text-amber-600 dark:text-amber-400" />,
  },
  error: {
    label: 'Error',
    color: 'red',
    icon: <CircleAlert aria-hidden="true" className="size-4 text-red-600 dark:text-red-400" />,
  },
  skipped: {
    label: 'Skipped',
    color: 'gray',
    icon: <CircleMinus aria-hidden="true" className="size-4 text-slate-400" />,
  },
};

const SEVERITY_ICON: Record<Finding['severity'], ReactNode> = {
  error: <CircleAlert aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-red-600 dark:text-red-400" />,
  warning: (
    <TriangleAlert aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-amber-600 dark:text-amber-400" />
  ),
  info: <Info aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-slate-400" />,
};

/** A hint with its web addresses as links (caniemail entries, mostly). */
function Linked({ text }: { text: string }) {
  const parts = text.split(/(https:\/\/[^\s)]+[^\s).,;])/g);
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 1 ? (
          <a
            key={i}
            href={part}
            target="_blank"
            rel="noreferrer noopener"
            className="wrap-anywhere text-brand-700 underline underline-offset-2 hover:text-brand-800 dark:text-brand-300"
          >
            {part.replace(/^https:\/\/(www\.)?/, '')}
          </a>
        ) : (
          <Fragment key={i}>{part}</Fragment>
        ),
      )}
    </>
  );
}

function FindingItem({ finding, onLine }: { finding: Finding; onLine?: (line: number) => void }) {
  return (
    <li className="flex gap-2.5 py-2.5" data-severity={finding.severity}>
      <span className="sr-only">{finding.severity}: </span>
      {SEVERITY_ICON[finding.severity]}
      <div className="min-w-0 space-y-1 text-sm">
        <p className="break-words text-slate-900 dark:text-slate-100">{finding.message}</p>
        <p className="break-words text-slate-600 dark:text-slate-400">
          <Linked text={finding.hint} />
        </p>
        {finding.element || finding.line !== undefined ? (
          <p className="flex min-w-0 flex-wrap items-baseline gap-x-2 gap-y-1 text-xs text-slate-500 dark:text-slate-400">
            {finding.line !== undefined ? (
              onLine ? (
                <button
                  type="button"
                  onClick={() => onLine(finding.line!)}
                  className="rounded text-brand-700 tabular-nums underline underline-offset-2 hover:text-brand-800 focus-visible:outline-2 focus-visible:outline-brand-600 dark:text-brand-300"
                  title="Show this line in the editor"
                >
                  Line {finding.line}
                </button>
              ) : (
                <span className="tabular-nums">Line {finding.line}</span>
              )
            ) : null}
            {finding.element ? (
              <code className="max-w-full truncate rounded bg-slate-100 px-1.5 py-0.5 font-mono text-slate-700 dark:bg-slate-800 dark:text-slate-300">
                {finding.element}
              </code>
            ) : null}
          </p>
        ) : null}
      </div>
    </li>
  );
}

function CheckRow({ check, onLine }: { check: Check; onLine?: (line: number) => void }) {
  const [open, setOpen] = useState(check.status === 'error');
  // A check that turns to error while the user types opens, as it would have on first show.
  const [shownStatus, setShownStatus] = useState(check.status);
  if (shownStatus !== check.status) {
    setShownStatus(check.status);
    if (check.status === 'error') setOpen(true);
  }
  const status = STATUS[check.status];
  const { errors, warnings } = countFindings([check]);
  const count = errors + warnings;
  const panelId = `check-${check.id}-findings`;
  return (
    <li data-check={check.id} data-status={check.status}>
      <div className="flex items-center gap-2 pr-3 hover:bg-slate-50 dark:hover:bg-slate-800/60">
        <button
          type="button"
          aria-expanded={open}
          aria-controls={panelId}
          onClick={() => setOpen((o) => !o)}
          disabled={check.findings.length === 0}
          className="flex min-w-0 flex-1 items-center gap-2.5 py-2.5 pl-3 text-left text-sm focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-brand-600 disabled:cursor-default"
        >
          <ChevronRight
            aria-hidden="true"
            className={cx(
              'size-4 shrink-0 text-slate-400 transition-transform',
              open && 'rotate-90',
              check.findings.length === 0 && 'invisible',
            )}
          />
          {status.icon}
          <span className="min-w-0 flex-1 font-medium text-slate-900 dark:text-white">{check.title}</span>
        </button>
        {count > 0 ? (
          <span className="text-xs text-slate-500 tabular-nums dark:text-slate-400">
            {count} {count === 1 ? 'issue' : 'issues'}
          </span>
        ) : null}
        <Badge color={status.color}>{status.label}</Badge>
      </div>
      {open && check.findings.length > 0 ? (
        <ul id={panelId} className="divide-y divide-slate-100 px-3 pb-1 pl-9 dark:divide-slate-800">
          {check.findings.map((f, i) => (
            <FindingItem key={i} finding={f} onLine={onLine} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

export function Checklist({
  checks,
  className,
  onLine,
}: {
  checks: readonly Check[];
  className?: string;
  /** Makes each finding's line a button (the composer moves its editor there). */
  onLine?: (line: number) => void;
}) {
  return (
    <ul
      data-testid="checklist"
      className={cx(
        'divide-y divide-slate-200 overflow-hidden rounded-xl border border-slate-200 bg-white dark:divide-slate-800 dark:border-slate-800 dark:bg-slate-900',
        className,
      )}
    >
      {checks.map((check) => (
        <CheckRow key={check.id} check={check} onLine={onLine} />
      ))}
    </ul>
  );
}

/** The one-line summary ("2 errors, 3 warnings"), coloured by the worst finding. */
export function ChecklistSummaryBadge({ checks, summary }: { checks: readonly Check[]; summary: string }) {
  const { errors, warnings } = countFindings(checks);
  const color: BadgeColor = errors > 0 ? 'red' : warnings > 0 ? 'yellow' : 'green';
  return (
    <Badge color={color} data-testid="checklist-summary">
      {errors > 0 ? (
        <CircleAlert aria-hidden="true" />
      ) : warnings > 0 ? (
        <TriangleAlert aria-hidden="true" />
      ) : (
        <CircleCheck aria-hidden="true" />
      )}
      {summary}
    </Badge>
  );
}
