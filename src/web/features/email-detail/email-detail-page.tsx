import { ArrowLeft, Code, Eye, FileCode, FileText, Globe, MailX, PencilLine, Share2 } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { Email } from '../../../shared/contract/email.ts';
import { useDocumentTitle } from '../../components/layout/use-document-title.ts';
import { Badge } from '../../components/ui/badge.tsx';
import { Button, buttonClasses } from '../../components/ui/button.tsx';
import { Card, CardContent } from '../../components/ui/card.tsx';
import { EmailPreview } from '../../components/email-preview/email-preview.tsx';
import { PinMarkers } from '../../components/review/pin-markers.tsx';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '../../components/ui/tabs.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { ApiError, errorMessage } from '../../lib/api.ts';
import { dateTime } from '../../lib/relative-time.ts';
import { useSession } from '../../lib/session.ts';
import { useEmail } from './api.ts';
import { HtmlSourceTab, PlainTextTab, RawTab } from './message-tabs.tsx';
import { DeliveryBadge } from '../../components/delivery-state.tsx';
import { EmailAddresses } from '../../components/ui/email-address.tsx';
import { DeliveryList } from './delivery-list.tsx';
import { StoredChecklist } from './stored-checklist.tsx';
import { ReviewsPanel } from './reviews-panel.tsx';
import { ShareDialog } from './share-dialog.tsx';
import { DeleteEmail } from './delete-email.tsx';
import { VersionPicker } from './version-picker.tsx';
import { ExportMenu } from './export-menu.tsx';

const backLink = buttonClasses({ variant: 'ghost', size: 'sm', className: '-ml-3' });

function BackToHistory() {
  return (
    <Link to="/app/history" className={backLink}>
      <ArrowLeft aria-hidden="true" />
      Back to History
    </Link>
  );
}

/** The Preview tab (docs/spec.md §2): the email under a mail client's header showing subject and to. */
function MailPreview({ email, onWidth }: { email: Email; onWidth: (width: number) => void }) {
  const subject = email.subject || 'No Subject';
  const header = (
    <div className="border-b border-slate-200 dark:border-slate-700">
      <div className="flex items-center gap-1.5 border-b border-slate-200 bg-slate-50 px-4 py-2.5 dark:border-slate-700 dark:bg-slate-800/80">
        <span aria-hidden="true" className="size-2.5 rounded-full bg-red-400" />
        <span aria-hidden="true" className="size-2.5 rounded-full bg-amber-400" />
        <span aria-hidden="true" className="size-2.5 rounded-full bg-green-400" />
      </div>
      <div className="space-y-1 px-5 py-4 dark:bg-slate-900">
        <p
          className="text-base font-semibold break-words text-slate-900 dark:text-white"
          data-testid="preview-subject"
        >
          {subject}
        </p>
        <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="preview-to">
          <span className="text-slate-500 dark:text-slate-400">To: </span>
          <EmailAddresses list={email.to} />
        </p>
      </div>
    </div>
  );
  // Stable, so the preview reports again only when its size changes.
  const onFrame = useCallback((frame: { width: number }) => onWidth(frame.width), [onWidth]);
  // The reviewers' pins on this version, numbered as in the Reviews panel below.
  const pinned = email.reviews.some((r) => r.pin && r.version === email.version);
  return (
    <EmailPreview
      html={email.html}
      title={`Email preview: ${subject}`}
      header={header}
      overlay={pinned ? <PinMarkers reviews={email.reviews} version={email.version} /> : undefined}
      onFrame={onFrame}
    />
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
      <Skeleton className="mx-auto block h-[800px] w-full max-w-[800px] rounded-xl" />
    </div>
  );
}

/**
 * /app/email/{id} (docs/spec.md §2): the email's facts, its Preview and HTML Source tabs (and the
 * Plain text and Raw tabs of docs/architecture.md §9), and sharing.
 */
export function EmailDetailPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const email = useEmail(id);
  const { user } = useSession();
  const [sharing, setSharing] = useState(false);
  const [tab, setTab] = useState('preview');
  // The width the preview shows (the default for its room until one is chosen): the export's.
  const [previewWidth, setPreviewWidth] = useState<number | null>(null);
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
            {data.versions.length > 1 ? (
              <Badge color="gray" data-testid="version-badge">
                v{data.version}
              </Badge>
            ) : null}
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
          <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
            <dt className="text-slate-500 dark:text-slate-400">To</dt>
            <dd className="min-w-0 text-slate-900 dark:text-slate-100" data-testid="email-to">
              <EmailAddresses list={data.to} />
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
          <VersionPicker email={data} />
        </div>
        <div className="flex flex-wrap gap-2 self-start sm:justify-end">
          {/* Opens the composer on this version; sending makes the thread's next version. */}
          <Link to={`/app/send?from=${data.id}`} className={buttonClasses({ variant: 'outline' })}>
            <PencilLine aria-hidden="true" />
            Edit and Resend
          </Link>
          <ExportMenu emailId={data.id} previewWidth={previewWidth} />
          <DeleteEmail email={data} />
          <Button onClick={() => setSharing(true)}>
            <Share2 aria-hidden="true" />
            Share Link
          </Button>
        </div>
      </div>

      <DeliveryList email={data} />

      <Tabs value={tab} onValueChange={setTab}>
        {/* Four tabs fit a 375 px phone once their icons go and their padding narrows; narrower,
            the list scrolls and its edge says there is more. */}
        <TabsList scrollable className="max-sm:[&_svg]:hidden max-sm:[&>button]:px-2.5">
          <TabsTrigger value="preview">
            <Eye aria-hidden="true" />
            Preview
          </TabsTrigger>
          <TabsTrigger value="source">
            <Code aria-hidden="true" />
            HTML Source
          </TabsTrigger>
          <TabsTrigger value="text">
            <FileText aria-hidden="true" />
            Plain Text
          </TabsTrigger>
          <TabsTrigger value="raw">
            <FileCode aria-hidden="true" />
            Raw
          </TabsTrigger>
        </TabsList>
        <TabsContent value="preview" tabIndex={-1}>
          <MailPreview email={data} onWidth={setPreviewWidth} />
        </TabsContent>
        <TabsContent value="source" tabIndex={-1}>
          <HtmlSourceTab email={data} />
        </TabsContent>
        <TabsContent value="text" tabIndex={-1}>
          <PlainTextTab email={data} />
        </TabsContent>
        <TabsContent value="raw" tabIndex={-1}>
          <RawTab email={data} />
        </TabsContent>
      </Tabs>

      <ReviewsPanel email={data} />

      <StoredChecklist email={data} />

      <ShareDialog email={data} open={sharing} onOpenChange={setSharing} canShare={canShare} />
    </div>
  );
}
