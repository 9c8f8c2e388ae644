import { PencilLine, Send, X } from 'lucide-react';
import {
  lazy,
  Suspense,
  useEffect,
  useMemo,
  useRef,
  useState,
  type FormEvent,
  type KeyboardEvent,
} from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearchParams } from 'react-router';
import { ChecklistSummaryBadge } from '../../components/checklist/checklist.tsx';
import { Button } from '../../components/ui/button.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { Card, CardContent } from '../../components/ui/card.tsx';
import { Field, Input, fieldDescription } from '../../components/ui/input.tsx';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { Switch } from '../../components/ui/switch.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { ApiError, errorMessage } from '../../lib/api.ts';
import { checklistSummary, countFindings } from '../../lib/checklist-summary.ts';
import type { Check } from '../../../shared/contract/checks.ts';
import { SEND_MESSAGES, type EmailTemplate, type SourceFormat } from '../../../shared/contract/email.ts';
import type { StarterTemplate } from '../../../shared/starter-templates/starter-templates.ts';
import { PRO_REDIRECT_DELAY_MS } from '../../../shared/plans.ts';
import { parseRecipients } from '../../../shared/recipients.ts';
import { AppPageHeader } from '../../components/layout/app-page-header.tsx';
import { useSession } from '../../lib/session.ts';
import { useUsage } from '../../lib/usage.ts';
import { emailPreviewQuery, useEmailPreview, useEmailToEdit, useLiveChecks, useSendEmail } from './api.ts';
import { ComposerPreview } from './composer-preview.tsx';
import { readDraft, useSavedDraft } from './composer-draft.ts';
import { parseSampleData, SampleData } from './sample-data.tsx';
import { SourceOptions, type MergeSyntax } from './source-options.tsx';
import { useDebouncedValue } from './use-debounced-value.ts';
import { UsageBanner } from './usage-banner.tsx';
import { VerificationRequiredNotice } from './verification-required-notice.tsx';

const HtmlEditor = lazy(() => import('./html-editor.tsx'));

/** How long typing must pause before the preview follows. */
const PREVIEW_DEBOUNCE_MS = 300;

interface FormProblem {
  title: string;
  detail?: string;
  field?: 'to' | 'html' | 'data';
}

/** Client-side check with the messages of docs/spec.md §5; the server enforces the same rules. */
function validate(to: string, html: string): FormProblem | null {
  if (!to.trim() || !html.trim()) {
    return {
      title: SEND_MESSAGES.missingTitle,
      detail: SEND_MESSAGES.missingDetail,
      field: !to.trim() ? 'to' : 'html',
    };
  }
  const parsed = parseRecipients(to);
  if (!parsed.ok && parsed.reason === 'too_many') {
    return { title: SEND_MESSAGES.tooManyTitle, detail: SEND_MESSAGES.tooManyDetail, field: 'to' };
  }
  if (!parsed.ok && parsed.reason === 'missing') {
    return { title: SEND_MESSAGES.missingTitle, detail: SEND_MESSAGES.missingDetail, field: 'to' };
  }
  if (!parsed.ok) {
    return {
      title: 'Invalid recipient',
      detail: `"${parsed.invalid}" is not a plain email address.`,
      field: 'to',
    };
  }
  return null;
}

export function SendPage() {
  const { user } = useSession();
  const usage = useUsage(Boolean(user));
  const send = useSendEmail();
  const navigate = useNavigate();
  const [to, setTo] = useState('');
  const [subject, setSubject] = useState('');
  const [html, setHtml] = useState('');
  const [inlineCss, setInlineCss] = useState(false);
  // The user's own plain-text part; null sends the one generated from the HTML.
  const [text, setText] = useState<string | null>(null);
  // The source's language and merge tags, with the JSON that fills them.
  const [format, setFormat] = useState<SourceFormat>('html');
  const [syntax, setSyntax] = useState<MergeSyntax>('none');
  const [sampleData, setSampleData] = useState('');
  const parsedData = useMemo(() => parseSampleData(sampleData), [sampleData]);
  // While the JSON does not parse, the preview keeps the last data that did.
  const lastGoodData = useRef<Record<string, unknown>>({});
  if (parsedData.ok) lastGoodData.current = parsedData.data;
  const template: EmailTemplate | undefined =
    syntax === 'none' ? undefined : { syntax, data: parsedData.ok ? parsedData.data : lastGoodData.current };
  const [problem, setProblem] = useState<FormProblem | null>(null);
  // Remounts the editor after a send: the CodeMirror wrapper ignores a new `value` that arrives
  // within its typing window, so a prop change alone may not clear it.
  const [editorKey, setEditorKey] = useState(0);
  const redirectTimer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(redirectTimer.current), []);

  // Edit and Resend (?from={id}): the email's source and options fill the form once; the send
  // becomes the next version of its thread.
  const [params, setParams] = useSearchParams();
  const fromId = params.get('from');
  const editing = useEmailToEdit(fromId);
  const parent = fromId !== null && editing.data?.id === fromId ? editing.data : null;
  const [filledFrom, setFilledFrom] = useState<string | null>(null);
  if (parent && filledFrom !== parent.id) {
    setFilledFrom(parent.id);
    setTo(parent.to);
    setSubject(parent.source.subject);
    setHtml(parent.source.html);
    setFormat(parent.source.format);
    setInlineCss(parent.source.inlineCss);
    setText(parent.source.text);
    setSyntax(parent.source.template?.syntax ?? 'none');
    setSampleData(parent.source.template ? JSON.stringify(parent.source.template.data, null, 2) : '');
    setEditorKey((k) => k + 1);
  }
  const stopEditing = () =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        next.delete('from');
        return next;
      },
      { replace: true },
    );
  useEffect(() => {
    if (!editing.error) return;
    toast.error('Failed to load email', errorMessage(editing.error));
    stopEditing();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per failed load
  }, [editing.error]);
  const nextVersion = parent ? parent.versions[0]!.version + 1 : null;

  // Unsent work from earlier in this tab (src/web/features/send/composer-draft.ts), restored once
  // the user is known (on a reload the page renders before the session answers), and saved from
  // then on. Edit and Resend fills the form from the email instead, and saves nothing.
  const [restoredFor, setRestoredFor] = useState<string | null>(null);
  if (user && restoredFor !== user.id) {
    setRestoredFor(user.id);
    const draft = fromId === null ? readDraft(user.id) : null;
    if (draft) {
      setTo(draft.to);
      setSubject(draft.subject);
      setHtml(draft.html);
      setInlineCss(draft.inlineCss);
      setText(draft.text);
      setFormat(draft.format);
      setSyntax(draft.syntax);
      setSampleData(draft.sampleData);
      setEditorKey((k) => k + 1);
    }
  }
  useSavedDraft(
    user?.id,
    { to, subject, html, inlineCss, text, format, syntax, sampleData },
    fromId !== null || restoredFor !== user?.id,
  );

  // The live preview asks for exactly what a send would take, once typing pauses; `to` only when
  // it is valid (it changes nothing but the message's size).
  const toIsValid = parseRecipients(to).ok;
  const previewInput = useMemo(
    () =>
      html.trim()
        ? {
            subject,
            html,
            inlineCss,
            format,
            ...(template ? { template } : {}),
            ...(toIsValid ? { to } : {}),
            ...(text?.trim() ? { text } : {}),
          }
        : null,
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `template` is derived from these
    [to, toIsValid, subject, html, inlineCss, text, format, syntax, parsedData],
  );
  const previewBody = useDebouncedValue(previewInput, PREVIEW_DEBOUNCE_MS);
  // The same query as the preview panel's (one request): its problems are marked in the editor.
  const preview = useEmailPreview(previewBody);
  const sourceProblems =
    previewBody && preview.error instanceof ApiError ? (preview.error.problems ?? []) : [];

  const startFrom = (starter: StarterTemplate) => {
    if (html.trim() && !window.confirm('Replace what is in the editor with this template?')) return;
    setFormat(starter.format);
    setSyntax(starter.syntax);
    setSampleData(JSON.stringify(starter.data, null, 2));
    setHtml(starter.source);
    if (!subject.trim()) setSubject(starter.subject);
    setEditorKey((k) => k + 1);
  };

  // The checklist comes with the preview (the same query ComposerPreview shows); Check Links adds
  // the live link and image checks for the content it ran on.
  const liveChecks = useLiveChecks();
  const [live, setLive] = useState<{ body: typeof previewBody; checks: Check[] } | null>(null);
  const linksChecked = live !== null && live.body === previewBody;
  const checks = previewBody === null ? null : linksChecked ? live.checks : (preview.data?.checks ?? null);
  const checkLinks = () => {
    const body = previewBody;
    if (!body) return;
    liveChecks.mutate(body, {
      onSuccess: (res) => setLive({ body, checks: res.checks }),
      onError: (err) => toast.error('Failed to check links', errorMessage(err)),
    });
  };
  const [previewTab, setPreviewTab] = useState('preview');
  const [confirmOpen, setConfirmOpen] = useState(false);
  // Clicking a finding's line moves the editor there, when lines of the HTML as sent are the
  // editor's (HTML sent as written, line ends aside).
  const [goTo, setGoTo] = useState<{ line: number } | null>(null);
  // MJML, merge tags and inlining all move lines: then the HTML as sent has lines of its own.
  const linesMatchEditor = !inlineCss && format === 'html' && syntax === 'none';

  const verified = user?.verified ?? false;
  const isPro = user?.plan === 'pro';
  const outOfSends = usage.data?.usage.remaining === 0;
  // At 0 sends left nothing sends: the button is disabled and Ctrl/Cmd+Enter does nothing.
  const sendingOff = outOfSends && !isPro;

  // The checklist a send asks about is the one of exactly what it sends: the panel's may be of the
  // HTML as it was a moment ago (the preview waits for typing to pause) or still on its way.
  const queryClient = useQueryClient();
  const [checking, setChecking] = useState(false);
  const [sentChecks, setSentChecks] = useState<Check[] | null>(null);
  const checksOfWhatIsSent = async (): Promise<Check[] | null> => {
    if (previewInput === null) return null;
    if (linksChecked && previewInput === previewBody) return checks;
    if (previewInput === previewBody && preview.data && !preview.isPlaceholderData) return checks;
    try {
      return (await queryClient.fetchQuery(emailPreviewQuery(previewInput))).checks ?? null;
    } catch {
      return null; // the send answers the same problem, in its own words
    }
  };

  const submit = async () => {
    if (send.isPending || sendingOff || checking) return;
    if (!verified) {
      setProblem({ title: SEND_MESSAGES.unverified });
      return;
    }
    const found =
      validate(to, html) ??
      (syntax !== 'none' && !parsedData.ok
        ? { title: 'Sample data needs fixing', detail: parsedData.error, field: 'data' as const }
        : null);
    setProblem(found);
    if (found) return;
    // Errors in the checklist do not stop a send, but it asks once.
    setChecking(true);
    const current = await checksOfWhatIsSent().finally(() => setChecking(false));
    if (current && countFindings(current).errors > 0) {
      setSentChecks(current);
      setConfirmOpen(true);
      return;
    }
    sendNow();
  };

  const sendNow = () => {
    setConfirmOpen(false);
    send.mutate(
      {
        to,
        subject,
        html,
        inlineCss,
        format,
        ...(template ? { template } : {}),
        ...(text?.trim() ? { text } : {}),
        ...(parent ? { parentId: parent.id } : {}),
      },
      {
        onSuccess: ({ id }) => {
          toast.success('Email sent successfully!');
          // The form clears (docs/spec.md, Sending): every field and option as a new form has them,
          // so the next source is not compiled as the last one's MJML with its sample data.
          setTo('');
          setSubject('');
          setHtml('');
          setText(null);
          setInlineCss(false);
          setFormat('html');
          setSyntax('none');
          setSampleData('');
          setEditorKey((k) => k + 1);
          setProblem(null);
          if (parent) stopEditing();
          // A new version opens at once for any plan: the user came from its thread's detail page.
          if (isPro || parent) {
            redirectTimer.current = window.setTimeout(
              () => navigate(`/app/email/${id}`),
              PRO_REDIRECT_DELAY_MS,
            );
          }
        },
        onError: (err) => toast.error('Failed to send email', errorMessage(err)),
      },
    );
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void submit();
  };

  // Ctrl/Cmd+Enter sends from any field; the editor handles it itself (and marks it handled).
  const onKeyDown = (e: KeyboardEvent<HTMLFormElement>) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !e.defaultPrevented) {
      e.preventDefault();
      void submit();
    }
  };

  const toIds = fieldDescription('send-to', { hint: true, error: problem?.field === 'to' });
  const htmlIds = fieldDescription('send-html', { error: problem?.field === 'html' });

  return (
    <div>
      <AppPageHeader
        title="Send Test Email"
        description="Paste your HTML, optionally inline its CSS, and send a real test to up to 5 inboxes."
      />
      <div className="space-y-6">
        {user && !verified ? <VerificationRequiredNotice /> : null}
        {!isPro && usage.data ? <UsageBanner usage={usage.data.usage} /> : null}
        {parent && nextVersion ? (
          <div
            data-testid="editing-banner"
            data-message=""
            className="flex flex-wrap items-center justify-between gap-3 rounded-xl border border-brand-200 bg-brand-50 px-4 py-3 text-sm text-brand-900 dark:border-brand-800 dark:bg-brand-950/60 dark:text-brand-100"
          >
            <p className="flex min-w-0 items-center gap-2">
              <PencilLine aria-hidden="true" className="size-4 shrink-0" />
              <span className="min-w-0">
                Editing version {parent.version} of “{parent.subject || 'No Subject'}”. Sending makes version{' '}
                {nextVersion}.
              </span>
            </p>
            <Button
              variant="ghost"
              size="sm"
              onClick={() => {
                stopEditing();
                setFilledFrom(null);
              }}
            >
              <X aria-hidden="true" />
              Send as a New Email
            </Button>
          </div>
        ) : null}

        {/* The preview sits beside the form on wide screens, below it on narrower ones. */}
        <div className="grid gap-6 xl:grid-cols-[minmax(0,5fr)_minmax(0,7fr)] xl:items-start">
          <Card>
            <CardContent>
              <form
                className="space-y-5"
                onSubmit={onSubmit}
                onKeyDown={onKeyDown}
                noValidate
                aria-label="Send Test Email"
              >
                <Field
                  id="send-to"
                  label="To"
                  hint="Up to 5 addresses, separated by commas"
                  error={problem?.field === 'to' ? ' ' : undefined}
                >
                  <Input
                    id="send-to"
                    type="text"
                    inputMode="email"
                    autoComplete="email"
                    placeholder="you@example.com, client@example.com"
                    value={to}
                    onChange={(e) => setTo(e.target.value)}
                    invalid={problem?.field === 'to'}
                    aria-describedby={toIds.describedBy}
                  />
                </Field>
                <Field id="send-subject" label="Subject">
                  <Input
                    id="send-subject"
                    placeholder="Test Email"
                    value={subject}
                    maxLength={998}
                    onChange={(e) => setSubject(e.target.value)}
                  />
                </Field>
                <SourceOptions
                  format={format}
                  onFormatChange={setFormat}
                  syntax={syntax}
                  onSyntaxChange={setSyntax}
                  onStartFrom={startFrom}
                />
                <div className="space-y-1.5">
                  <label
                    htmlFor="send-html"
                    className="block text-sm font-medium text-slate-800 dark:text-slate-200"
                  >
                    {format === 'mjml' ? 'MJML Content' : 'HTML Content'}
                  </label>
                  <Suspense fallback={<Skeleton className="h-[400px] w-full" />}>
                    <HtmlEditor
                      key={editorKey}
                      id="send-html"
                      value={html}
                      onChange={setHtml}
                      onSubmit={submit}
                      invalid={problem?.field === 'html'}
                      describedBy={htmlIds.describedBy}
                      format={format}
                      problems={sourceProblems}
                      goTo={goTo}
                    />
                  </Suspense>
                </div>
                {syntax !== 'none' ? (
                  <SampleData
                    value={sampleData}
                    onChange={setSampleData}
                    error={parsedData.ok ? null : parsedData.error}
                  />
                ) : null}
                <div className="flex items-center justify-between gap-4 rounded-lg border border-slate-200 px-4 py-3 dark:border-slate-800">
                  <div>
                    <p id="inline-css-label" className="text-sm font-medium">
                      Inline CSS
                    </p>
                    <p id="inline-css-hint" className="text-sm text-slate-600 dark:text-slate-400">
                      Copies your &lt;style&gt; rules into style attributes, for clients that ignore
                      &lt;style&gt;. What cannot be inlined (media queries, :hover, client fixes) stays in a
                      &lt;style&gt; block; add <code className="font-mono text-xs">data-embed</code> to a
                      &lt;style&gt; to keep it as written.
                    </p>
                  </div>
                  <Switch
                    checked={inlineCss}
                    onCheckedChange={setInlineCss}
                    aria-labelledby="inline-css-label"
                    aria-describedby="inline-css-hint"
                  />
                </div>

                {problem ? (
                  <div
                    role="alert"
                    className="rounded-lg border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-900 dark:border-red-500/40 dark:bg-red-950/50 dark:text-red-200"
                  >
                    <p className="font-semibold">{problem.title}</p>
                    {problem.detail ? <p>{problem.detail}</p> : null}
                  </div>
                ) : null}

                <div className="flex flex-wrap items-center justify-between gap-3">
                  {sendingOff ? (
                    <p id="send-off-hint" className="text-xs text-slate-600 dark:text-slate-400">
                      No sends left this month: sending (and Ctrl+Enter) is off until your allowance resets.
                    </p>
                  ) : (
                    <p className="text-xs text-slate-500 dark:text-slate-400">
                      Tip: press <kbd className="rounded border px-1 font-mono">Ctrl</kbd>+
                      <kbd className="rounded border px-1 font-mono">Enter</kbd> to send.
                    </p>
                  )}
                  <div className="flex flex-wrap items-center justify-end gap-3">
                    {checks ? (
                      <button
                        type="button"
                        // A message in sentence case, not a Title Case control label (docs/copy-style.md).
                        data-message
                        onClick={() => setPreviewTab('checks')}
                        className="rounded-full focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
                        aria-label={`Checklist: ${checklistSummary(checks)}. Show the checks.`}
                      >
                        <ChecklistSummaryBadge checks={checks} summary={checklistSummary(checks)} />
                      </button>
                    ) : null}
                    <Button
                      type="submit"
                      size="lg"
                      busy={send.isPending || checking}
                      busyLabel={checking ? 'Checking…' : 'Sending…'}
                      disabled={sendingOff}
                      aria-describedby={sendingOff ? 'send-off-hint' : undefined}
                    >
                      <Send aria-hidden="true" />
                      Send Test Email
                    </Button>
                  </div>
                </div>
              </form>
            </CardContent>
          </Card>
          <ComposerPreview
            body={previewBody}
            text={text}
            onTextChange={setText}
            tab={previewTab}
            onTabChange={setPreviewTab}
            checks={checks}
            onCheckLinks={previewBody ? checkLinks : null}
            checkingLinks={liveChecks.isPending}
            linksChecked={linksChecked}
            onLine={linesMatchEditor ? (line) => setGoTo({ line }) : undefined}
          />
          <Dialog
            open={confirmOpen}
            onOpenChange={setConfirmOpen}
            title="Send With Errors?"
            description={
              sentChecks
                ? `The checklist found ${checklistSummary(sentChecks)} in this email. You can send it anyway, or review the checks first.`
                : undefined
            }
            size="sm"
            footer={
              <>
                <Button
                  variant="outline"
                  onClick={() => {
                    setConfirmOpen(false);
                    setPreviewTab('checks');
                  }}
                >
                  Review Checks
                </Button>
                <Button onClick={sendNow}>Send Anyway</Button>
              </>
            }
          />
        </div>
      </div>
    </div>
  );
}
