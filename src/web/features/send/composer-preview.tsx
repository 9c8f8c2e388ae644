import { Eye, FileText, Hourglass, ListChecks, Link2, RotateCcw, TriangleAlert } from 'lucide-react';
import { useEffect, useState } from 'react';
import type { Check } from '../../../shared/contract/checks.ts';
import type { PreviewEmailRequest, PreviewEmailResponse } from '../../../shared/contract/email.ts';
import { Checklist, ChecklistSummaryBadge } from '../../components/checklist/checklist.tsx';
import { EmailPreview } from '../../components/email-preview/email-preview.tsx';
import { Button } from '../../components/ui/button.tsx';
import { Spinner } from '../../components/ui/spinner.tsx';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '../../components/ui/tabs.tsx';
import { Textarea } from '../../components/ui/textarea.tsx';
import { errorMessage } from '../../lib/api.ts';
import { checklistSummary, countFindings } from '../../lib/checklist-summary.ts';
import { formatBytes } from '../../lib/format-size.ts';
import { previewWait, useEmailPreview } from './api.ts';

export interface ComposerPreviewProps {
  /** What a send would take now (settled after typing); null while there is no HTML. */
  body: PreviewEmailRequest | null;
  /** The user's own plain-text part, or null for the generated one. */
  text: string | null;
  onTextChange: (text: string | null) => void;
  /** The tab shown: preview, text or checks (the Send button's summary opens the checks). */
  tab: string;
  onTabChange: (tab: string) => void;
  /** The checklist to show: the live one after Check Links, else the preview's. */
  checks: readonly Check[] | null;
  /** Runs the live link and image checks; null while there is nothing to check. */
  onCheckLinks: (() => void) | null;
  checkingLinks: boolean;
  /** The live checks ran on the current content. */
  linksChecked: boolean;
  /** Shows a line of the HTML in the editor; absent when lines of the HTML as sent differ from it (Inline CSS). */
  onLine?: (line: number) => void;
}

/** "3.1 KB → 4.6 KB · 5 rules kept in a <style> block" */
function Sizes({ preview }: { preview: PreviewEmailResponse }) {
  const { bytes, notes } = preview;
  return (
    <p className="text-xs text-slate-500 tabular-nums dark:text-slate-400" data-testid="preview-sizes">
      {notes.inlined ? (
        <>
          Inline CSS: {formatBytes(bytes.source)} → {formatBytes(bytes.html)}
          {notes.keptInStyle > 0
            ? ` · ${notes.keptInStyle} ${notes.keptInStyle === 1 ? 'rule' : 'rules'} kept in a <style> block`
            : ''}
          {' · '}
        </>
      ) : null}
      Whole message {formatBytes(bytes.message)}
    </p>
  );
}

/** The errors and warnings of the checklist, on the Checks tab. */
function ProblemCount({ checks }: { checks: readonly Check[] }) {
  const { errors, warnings } = countFindings(checks);
  if (errors + warnings === 0) return null;
  return (
    <span
      className={
        errors > 0
          ? 'rounded-full bg-red-600 px-1.5 text-[11px] leading-4 font-semibold text-white tabular-nums'
          : 'rounded-full bg-amber-300 px-1.5 text-[11px] leading-4 font-semibold text-amber-950 tabular-nums'
      }
    >
      <span className="sr-only">(</span>
      {errors + warnings}
      <span className="sr-only"> {errors + warnings === 1 ? 'Issue' : 'Issues'})</span>
    </span>
  );
}

/**
 * While the preview waits out the server's throttle (useEmailPreview asks again by itself): the
 * seconds left, ticking; null when it is not waiting.
 */
function useThrottleWait(failure: unknown, waiting: boolean): number | null {
  const [deadline, setDeadline] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const wait = waiting ? previewWait(failure) : undefined;
    setDeadline(wait === undefined ? null : Date.now() + wait * 1000);
    setNow(Date.now());
    if (wait === undefined) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [failure, waiting]);
  return deadline === null ? null : Math.max(1, Math.ceil((deadline - now) / 1000));
}

/**
 * The composer's live preview (docs/architecture.md §9): exactly what a send of the form would
 * deliver, from POST /api/email/preview, shown by the one preview component; and the plain-text
 * part, generated or the user's own.
 */
export function ComposerPreview({
  body,
  text,
  onTextChange,
  tab,
  onTabChange,
  checks,
  onCheckLinks,
  checkingLinks,
  linksChecked,
  onLine,
}: ComposerPreviewProps) {
  const preview = useEmailPreview(body);
  // The last good answer stays on show while the next one loads, and when it fails.
  const [lastGood, setLastGood] = useState<PreviewEmailResponse | null>(null);
  useEffect(() => {
    if (preview.data && !preview.isPlaceholderData) setLastGood(preview.data);
  }, [preview.data, preview.isPlaceholderData]);

  const shown = body === null ? null : preview.isError ? lastGood : (preview.data ?? lastGood);
  const updating = body !== null && preview.isFetching;
  const waitS = useThrottleWait(preview.failureReason, updating);
  const status = updating ? (
    <span
      className="inline-flex items-center gap-1.5 text-xs text-slate-500 dark:text-slate-400"
      role="status"
    >
      <Spinner className="size-3.5" label={null} />
      Updating…
    </span>
  ) : null;
  const overridden = text !== null;

  return (
    <section aria-labelledby="composer-preview-title" className="min-w-0 space-y-3">
      <h2 id="composer-preview-title" className="sr-only">
        Preview of What Will Be Sent
      </h2>
      <Tabs value={tab} onValueChange={onTabChange}>
        <div className="flex flex-wrap items-center justify-between gap-2">
          {/* On a phone the tabs drop their icons to fit, and scroll with a hint if they still do not. */}
          <TabsList scrollable className="max-sm:[&_svg]:hidden">
            <TabsTrigger value="preview">
              <Eye aria-hidden="true" />
              Preview
            </TabsTrigger>
            <TabsTrigger value="text">
              <FileText aria-hidden="true" />
              Plain Text
            </TabsTrigger>
            <TabsTrigger value="checks">
              <ListChecks aria-hidden="true" />
              Checks
              {checks && body !== null ? <ProblemCount checks={checks} /> : null}
            </TabsTrigger>
          </TabsList>
          {shown ? <Sizes preview={shown} /> : null}
        </div>

        {waitS !== null ? (
          <div
            role="status"
            data-testid="preview-wait"
            className="mt-3 flex gap-2.5 rounded-lg border border-slate-200 bg-slate-50 px-3.5 py-2.5 text-sm text-slate-700 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-300"
          >
            <Hourglass aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
            {/* Said once to a screen reader; the ticking seconds are for the eye only. */}
            <p className="min-w-0">
              Many previews this minute: this one follows by itself
              <span aria-hidden="true">
                {' '}
                in <span className="tabular-nums">{waitS}</span> s
              </span>
              .
            </p>
          </div>
        ) : null}

        {body !== null && preview.isError ? (
          <div
            role="status"
            data-testid="preview-error"
            className="mt-3 flex gap-2.5 rounded-lg border border-amber-300 bg-amber-50 px-3.5 py-2.5 text-sm text-amber-950 dark:border-amber-500/40 dark:bg-amber-950/40 dark:text-amber-100"
          >
            <TriangleAlert aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
            <div className="min-w-0">
              <p className="font-medium">The preview could not be updated</p>
              <p className="break-words">{errorMessage(preview.error)}</p>
            </div>
          </div>
        ) : null}

        <TabsContent value="preview" tabIndex={-1}>
          {shown ? (
            <EmailPreview
              html={shown.html}
              title="Preview of the email as it will be sent"
              status={status}
              header={
                <div className="border-b border-slate-200 bg-slate-50 px-4 py-2.5 text-sm dark:border-slate-700 dark:bg-slate-900">
                  <span className="text-slate-500 dark:text-slate-400">Subject: </span>
                  <span
                    className="font-medium break-words text-slate-900 dark:text-white"
                    data-testid="preview-subject"
                  >
                    {shown.subject}
                  </span>
                </div>
              }
            />
          ) : (
            <div className="flex min-h-72 flex-col items-center justify-center gap-2 rounded-xl border border-dashed border-slate-300 p-8 text-center text-sm text-slate-500 dark:border-slate-700 dark:text-slate-400">
              {updating ? <Spinner className="size-5" label="Loading the preview" /> : null}
              <p>
                {body === null
                  ? 'The preview of your email appears here as you type.'
                  : 'Preparing the preview…'}
              </p>
            </div>
          )}
        </TabsContent>
        <TabsContent value="text" tabIndex={-1} className="space-y-2">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p id="plain-text-hint" className="text-xs text-slate-600 dark:text-slate-400">
              {!overridden
                ? 'Generated from your HTML, as it will be sent. Edit it to send your own.'
                : text.trim()
                  ? 'Your own plain-text part: it is sent instead of the generated one.'
                  : 'Empty: the text generated from your HTML will be sent.'}
            </p>
            {overridden ? (
              <Button variant="outline" size="sm" onClick={() => onTextChange(null)}>
                <RotateCcw aria-hidden="true" />
                Reset to Generated
              </Button>
            ) : null}
          </div>
          <Textarea
            aria-label="Plain text"
            aria-describedby="plain-text-hint"
            value={text ?? shown?.text ?? ''}
            onChange={(e) => onTextChange(e.target.value)}
            spellCheck={false}
            className="h-[400px] resize-y font-mono text-xs"
          />
        </TabsContent>
        <TabsContent value="checks" tabIndex={-1} className="space-y-3">
          {checks && body !== null ? (
            <>
              <div className="flex flex-wrap items-center justify-between gap-2">
                <div className="flex flex-wrap items-center gap-2">
                  <ChecklistSummaryBadge checks={checks} summary={checklistSummary(checks)} />
                  {status}
                </div>
                <Button
                  variant="outline"
                  size="sm"
                  onClick={onCheckLinks ?? undefined}
                  disabled={!onCheckLinks}
                  busy={checkingLinks}
                  busyLabel="Checking Links…"
                >
                  <Link2 aria-hidden="true" />
                  Check Links
                </Button>
              </div>
              <p className="text-xs text-slate-600 dark:text-slate-400">
                {linksChecked
                  ? 'Links and images were requested just now: broken ones, redirects and image weights are included.'
                  : 'Checked on the message as it will be sent. Check Links also requests every link and image.'}
              </p>
              <Checklist checks={checks} onLine={onLine} />
            </>
          ) : (
            <div className="flex min-h-40 items-center justify-center rounded-xl border border-dashed border-slate-300 p-8 text-center text-sm text-slate-500 dark:border-slate-700 dark:text-slate-400">
              <p>
                {body === null
                  ? 'The checklist of your email appears here as you type.'
                  : 'Checking your email…'}
              </p>
            </div>
          )}
        </TabsContent>
      </Tabs>
    </section>
  );
}
