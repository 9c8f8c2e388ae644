import { ArrowLeft, Check, Code, Copy, Eye, Globe, MailX, Share2 } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { Email } from '../../../shared/contract/email.ts';
import { COPIED_INDICATOR_MS } from '../../../shared/plans.ts';
import { useDocumentTitle } from '../../components/layout/use-document-title.ts';
import { Badge } from '../../components/ui/badge.tsx';
import { Button, buttonClasses } from '../../components/ui/button.tsx';
import { Card, CardContent } from '../../components/ui/card.tsx';
import { EmailFrame } from '../../components/ui/email-frame.tsx';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '../../components/ui/tabs.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { ApiError, errorMessage } from '../../lib/api.ts';
import { dateTime } from '../../lib/relative-time.ts';
import { useSession } from '../../lib/session.ts';
import { useEmail } from './api.ts';
import { copyText } from './copy-text.ts';
import { DeliveryBadge } from '../../components/delivery-state.tsx';
import { DeliveryList } from './delivery-list.tsx';
import { ShareDialog } from './share-dialog.tsx';

const backLink = buttonClasses({ variant: 'ghost', size: 'sm', className: '-ml-3' });

function BackToHistory() {
  return (
    <Link to="/app/history" className={backLink}>
      <ArrowLeft aria-hidden="true" />
      Back to History
    </Link>
  );
}

/** The sandboxed preview inside a mail client's reading pane (docs/spec.md §2: ≤ 600px wide, ≥ 800px high). */
function MailPreview({ email }: { email: Email }) {
  const subject = email.subject || 'No Subject';
  return (
    <div className="mx-auto w-full max-w-[600px] overflow-hidden rounded-xl border border-slate-200 bg-white shadow-sm dark:border-slate-700">
      <div className="flex items-center gap-1.5 border-b border-slate-200 bg-slate-50 px-4 py-2.5 dark:border-slate-700 dark:bg-slate-800/80">
        <span aria-hidden="true" className="size-2.5 rounded-full bg-red-400" />
        <span aria-hidden="true" className="size-2.5 rounded-full bg-amber-400" />
        <span aria-hidden="true" className="size-2.5 rounded-full bg-green-400" />
      </div>
      <div className="space-y-1 border-b border-slate-200 px-5 py-4 dark:border-slate-700 dark:bg-slate-900">
        <p
          className="text-base font-semibold break-words text-slate-900 dark:text-white"
          data-testid="preview-subject"
        >
          {subject}
        </p>
        <p className="text-sm break-all text-slate-600 dark:text-slate-400" data-testid="preview-to">
          <span className="text-slate-500 dark:text-slate-500">To: </span>
          {email.to}
        </p>
      </div>
      <EmailFrame html={email.html} title={`Email preview: ${subject}`} className="h-[800px]" />
    </div>
  );
}

function HtmlSource({ html }: { html: string }) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const copy = async () => {
    try {
      await copyText(html);
      setCopied(true);
      window.clearTimeout(timer.current);
      timer.current = window.setTimeout(() => setCopied(false), COPIED_INDICATOR_MS);
      toast.success('HTML copied to clipboard');
    } catch (err) {
      toast.error('Failed to copy HTML', errorMessage(err));
    }
  };
  const kb = new Blob([html]).size / 1024;
  return (
    <div className="overflow-hidden rounded-xl border border-slate-200 dark:border-slate-800">
      <div className="flex items-center justify-between gap-3 border-b border-slate-200 bg-slate-50 px-4 py-2 dark:border-slate-800 dark:bg-slate-900">
        <p className="text-xs text-slate-500 dark:text-slate-400">
          {html.split('\n').length.toLocaleString()} lines ·{' '}
          {kb < 10 ? kb.toFixed(1) : Math.round(kb).toLocaleString()} KB
        </p>
        <Button variant="outline" size="sm" onClick={() => void copy()}>
          {copied ? <Check aria-hidden="true" /> : <Copy aria-hidden="true" />}
          Copy HTML
        </Button>
      </div>
      <textarea
        readOnly
        value={html}
        aria-label="HTML Source"
        spellCheck={false}
        wrap="off"
        className="block h-[600px] w-full resize-y bg-white p-4 font-mono text-xs leading-5 text-slate-800 outline-none focus-visible:ring-2 focus-visible:ring-brand-500/40 focus-visible:ring-inset dark:bg-slate-950 dark:text-slate-200"
      />
    </div>
  );
}

function NotFound() {
  return (
    <>
      <Card>
        <CardContent className="flex flex-col items-center gap-3 py-14 text-center">
          <span className="flex size-12 items-center justify-center rounded-full bg-slate-100 text-slate-500 dark:bg-slate-800 dark:text-slate-400">
            <MailX aria-hidden="true" className="size-6" />
          </span>
          <h1 className="text-xl font-semibold text-slate-900 dark:text-white">Email not found</h1>
          <p className="max-w-sm text-sm text-slate-600 dark:text-slate-400">
            It may have been deleted, or the address is not quite right.
          </p>
          <Link to="/app/history" className={buttonClasses({ variant: 'outline', className: 'mt-2' })}>
            Back to History
          </Link>
        </CardContent>
      </Card>
    </>
  );
}

function Loading() {
  return (
    <div aria-busy="true" aria-label="Loading email" className="space-y-6">
      <BackToHistory />
      <div className="space-y-3">
        <Skeleton className="block h-8 w-80 max-w-full" />
        <Skeleton className="block h-4 w-64 max-w-full" />
        <Skeleton className="block h-4 w-48" />
      </div>
      <Skeleton className="mx-auto block h-[600px] w-full max-w-[600px] rounded-xl" />
    </div>
  );
}

/** /app/email/{id} (docs/spec.md §2): the email's facts, Preview and HTML Source tabs, and sharing. */
export function EmailDetailPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const email = useEmail(id);
  const { user } = useSession();
  const [sharing, setSharing] = useState(false);
  const [tab, setTab] = useState('preview');
  const error = email.error;
  const notFound = error instanceof ApiError && error.status === 404;
  useDocumentTitle(notFound ? 'Email not found' : email.data ? email.data.subject || 'No Subject' : 'Email');

  useEffect(() => {
    // docs/spec.md §2: a failed load goes back to the history (a missing email has its own state).
    if (!error || notFound || email.data) return;
    toast.error('Failed to load email', errorMessage(error));
    void navigate('/app/history', { replace: true });
  }, [error, notFound, email.data, navigate]);

  if (notFound) return <NotFound />;
  if (!email.data) return <Loading />;

  const data = email.data;
  // Only what reached a server reads "Sent" (its time); anything else shows when it was submitted.
  const sentAt = data.delivery.sentAt;
  const canShare = (user?.plan ?? '').toLowerCase() === 'pro';
  return (
    <div className="space-y-6">
      <BackToHistory />
      <div className="flex flex-col gap-4 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0 space-y-3">
          <div className="flex flex-wrap items-center gap-2">
            <DeliveryBadge delivery={data.delivery} />
            {data.isPublic ? (
              <Badge color="brand" data-testid="public-badge">
                <Globe aria-hidden="true" />
                Public
              </Badge>
            ) : null}
          </div>
          <h1
            className={
              'text-2xl font-semibold tracking-tight break-words sm:text-3xl ' +
              (data.subject ? 'text-slate-900 dark:text-white' : 'text-slate-500 italic dark:text-slate-400')
            }
          >
            {data.subject || 'No Subject'}
          </h1>
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            <dt className="text-slate-500 dark:text-slate-400">To</dt>
            <dd className="break-all text-slate-900 dark:text-slate-100" data-testid="email-to">
              {data.to}
            </dd>
            <dt className="text-slate-500 dark:text-slate-400" data-testid="email-time-label">
              {sentAt ? 'Sent' : 'Submitted'}
            </dt>
            <dd className="text-slate-900 dark:text-slate-100">
              <time dateTime={sentAt ?? data.createdAt} data-testid="email-sent-at">
                {dateTime(sentAt ?? data.createdAt)}
              </time>
            </dd>
          </dl>
        </div>
        <Button onClick={() => setSharing(true)} className="self-start">
          <Share2 aria-hidden="true" />
          Share Link
        </Button>
      </div>

      <DeliveryList email={data} />

      <Tabs value={tab} onValueChange={setTab}>
        <TabsList>
          <TabsTrigger value="preview">
            <Eye aria-hidden="true" />
            Preview
          </TabsTrigger>
          <TabsTrigger value="source">
            <Code aria-hidden="true" />
            HTML Source
          </TabsTrigger>
        </TabsList>
        <TabsContent value="preview" tabIndex={-1}>
          <MailPreview email={data} />
        </TabsContent>
        <TabsContent value="source" tabIndex={-1}>
          <HtmlSource html={data.html} />
        </TabsContent>
      </Tabs>

      <ShareDialog email={data} open={sharing} onOpenChange={setSharing} canShare={canShare} />
    </div>
  );
}
