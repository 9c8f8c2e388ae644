import { ArrowLeft, ArrowRight, ChevronDown, Code, Eye, ScanEye, Send } from 'lucide-react';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { Email } from '../../../../shared/contract/email.ts';
import { defaultWidth } from '../../../components/email-preview/preview-view.ts';
import { usePreviewView } from '../../../components/email-preview/use-preview-view.ts';
import { useDocumentTitle } from '../../../components/layout/use-document-title.ts';
import { buttonClasses } from '../../../components/ui/button.tsx';
import { Card, CardContent } from '../../../components/ui/card.tsx';
import { DropdownMenu, DropdownMenuItem } from '../../../components/ui/dropdown-menu.tsx';
import { SegmentedControl } from '../../../components/ui/segmented-control.tsx';
import { Skeleton } from '../../../components/ui/skeleton.tsx';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '../../../components/ui/tabs.tsx';
import { toast } from '../../../components/ui/toast.tsx';
import { ApiError, errorMessage } from '../../../lib/api.ts';
import { dateTime } from '../../../lib/relative-time.ts';
import { useEmail } from '../api.ts';
import { SourceDiffView, type DiffLayout } from './source-diff-view.tsx';
import { PixelTab } from './pixel-tab.tsx';
import { VisualCompare, type VisualLayout } from './visual-compare.tsx';

const backLink = buttonClasses({ variant: 'ghost', size: 'sm', className: '-ml-3' });

/** A tab of the compare screen. */
interface CompareTab {
  value: string;
  label: ReactNode;
  content: ReactNode;
}

/** One side's version picker: every version of the thread, the current one checked. */
function SidePicker({
  label,
  email,
  versions,
  onPick,
}: {
  label: string;
  email: Email;
  versions: Email['versions'];
  onPick: (id: string) => void;
}) {
  return (
    <DropdownMenu
      align="start"
      triggerVariant="outline"
      triggerSize="sm"
      label={`${label}: version ${email.version}. Choose another`}
      trigger={
        <>
          Version {email.version}
          <ChevronDown aria-hidden="true" />
        </>
      }
    >
      {versions.map((v) => (
        <DropdownMenuItem key={v.id} checked={v.id === email.id} onSelect={() => onPick(v.id)}>
          <span className="flex flex-col">
            <span className="font-medium">Version {v.version}</span>
            <span className="text-xs text-slate-500 dark:text-slate-400">{dateTime(v.createdAt)}</span>
          </span>
        </DropdownMenuItem>
      ))}
    </DropdownMenu>
  );
}

/**
 * What the source diffs do not show: the subject, the recipients and Inline CSS, listed when they
 * differ between the two sides (nothing when they are the same).
 */
function OtherChanges({ a, b }: { a: Email; b: Email }) {
  const changes = [
    { label: 'Subject', from: a.subject || 'No Subject', to: b.subject || 'No Subject' },
    { label: 'To', from: a.to, to: b.to },
    { label: 'Inline CSS', from: a.source.inlineCss ? 'On' : 'Off', to: b.source.inlineCss ? 'On' : 'Off' },
  ].filter((c) => c.from !== c.to);
  if (changes.length === 0) return null;
  return (
    <dl
      className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 rounded-lg border border-slate-200 bg-white px-3 py-2 text-sm dark:border-slate-800 dark:bg-slate-900"
      data-testid="other-changes"
    >
      {changes.map((c) => (
        <div key={c.label} className="contents">
          <dt className="font-medium text-slate-900 dark:text-white">{c.label}</dt>
          <dd className="min-w-0 wrap-anywhere text-slate-700 dark:text-slate-300">
            <del className="text-red-700 decoration-red-400 dark:text-red-300">{c.from}</del>
            <span aria-hidden="true" className="px-1.5 text-slate-400">
              →
            </span>
            <span className="sr-only">changed to</span>
            <ins className="text-emerald-700 no-underline dark:text-emerald-300">{c.to}</ins>
          </dd>
        </div>
      ))}
    </dl>
  );
}

const narrow = () => typeof window !== 'undefined' && window.matchMedia('(max-width: 767px)').matches;

/**
 * /app/email/{id}/compare/{otherId}: two versions of an email, the left one (older) against the
 * right one. Tabs: the source as written, the HTML as sent (each side by side or inline, words
 * marked inside changed lines), and the two renders side by side or swiped.
 */
export function ComparePage() {
  const { id = '', otherId = '' } = useParams();
  const navigate = useNavigate();
  const left = useEmail(id);
  const right = useEmail(otherId);
  const [tab, setTab] = useState('written');
  const [diffLayout, setDiffLayout] = useState<DiffLayout>(() => (narrow() ? 'inline' : 'split'));
  const [visualLayout, setVisualLayout] = useState<VisualLayout>('split');
  const [view, setView] = usePreviewView();
  const tabsBox = useRef<HTMLDivElement>(null);
  const error = left.error ?? right.error;
  const notFound = error instanceof ApiError && error.status === 404;
  useDocumentTitle('Compare Versions');

  useEffect(() => {
    if (!error || notFound) return;
    toast.error('Failed to load email', errorMessage(error));
    void navigate('/app/history', { replace: true });
  }, [error, notFound, navigate]);

  if (notFound) {
    return (
      <Card>
        <CardContent className="flex flex-col items-center gap-3 py-14 text-center">
          <h1 className="text-xl font-semibold text-slate-900 dark:text-white">Email not found</h1>
          <p className="max-w-sm text-sm text-slate-600 dark:text-slate-400">
            One of these versions may have been deleted.
          </p>
          <Link to="/app/history" className={buttonClasses({ variant: 'outline', className: 'mt-2' })}>
            Back to History
          </Link>
        </CardContent>
      </Card>
    );
  }
  if (!left.data || !right.data) {
    return (
      <div aria-busy="true" aria-label="Loading versions" className="space-y-4">
        <Skeleton className="block h-8 w-72 max-w-full" />
        <Skeleton className="block h-[480px] w-full rounded-xl" />
      </div>
    );
  }

  const a = left.data;
  const b = right.data;
  // The versions to pick from: the newer side's thread list, the newest that was loaded.
  const versions = b.versions.length >= a.versions.length ? b.versions : a.versions;
  const pick = (side: 'left' | 'right') => (picked: string) =>
    void navigate(
      side === 'left' ? `/app/email/${picked}/compare/${b.id}` : `/app/email/${a.id}/compare/${picked}`,
      { replace: true },
    );
  // Two emails of different threads (an address typed by hand) are compared all the same, but
  // their sides are named by subject, and the page says they are not versions of one email.
  const sameThread = a.threadId === b.threadId;
  const captions: [ReactNode, ReactNode] = sameThread
    ? [`Version ${a.version}`, `Version ${b.version}`]
    : [a.subject || 'No Subject', b.subject || 'No Subject'];
  // One width for the renders of both versions, whichever tab and layout shows them: the default
  // for the page's room (preview-view.ts), not for one side's half of it nor for the window.
  const renderWidth = () => defaultWidth(tabsBox.current?.clientWidth || window.innerWidth);
  const selectTab = (next: string) => {
    // The Visual and Pixel Diff tabs take their width from the URL: a width not chosen yet is
    // written there as they open, so both start at the same one and keep it.
    if ((next === 'visual' || next === 'pixels') && view.width === null) setView({ width: renderWidth() });
    setTab(next);
  };
  const layoutControl = (
    <SegmentedControl<DiffLayout>
      label="Diff layout"
      options={[
        { value: 'split', label: 'Side by Side' },
        { value: 'inline', label: 'Inline' },
      ]}
      value={diffLayout}
      onChange={setDiffLayout}
    />
  );

  const tabs: CompareTab[] = [
    {
      value: 'written',
      label: (
        <>
          <Code aria-hidden="true" />
          Written Source
        </>
      ),
      content: (
        <div className="space-y-3">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p className="text-sm text-slate-600 dark:text-slate-400">
              What you wrote (
              {a.source.format === 'mjml' || b.source.format === 'mjml' ? 'HTML or MJML' : 'HTML'}, merge tags
              as written), before inlining.
            </p>
            {layoutControl}
          </div>
          <SourceDiffView
            left={a.source.html}
            right={b.source.html}
            layout={diffLayout}
            captions={captions}
          />
        </div>
      ),
    },
    {
      value: 'sent',
      label: (
        <>
          <Send aria-hidden="true" />
          Sent HTML
        </>
      ),
      content: (
        <div className="space-y-3">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p className="text-sm text-slate-600 dark:text-slate-400">The HTML part as it was sent.</p>
            {layoutControl}
          </div>
          <SourceDiffView left={a.html} right={b.html} layout={diffLayout} captions={captions} />
        </div>
      ),
    },
    {
      value: 'visual',
      label: (
        <>
          <Eye aria-hidden="true" />
          Visual
        </>
      ),
      content: (
        <div className="space-y-3">
          <SegmentedControl<VisualLayout>
            label="Visual layout"
            options={[
              { value: 'split', label: 'Side by Side' },
              { value: 'swipe', label: 'Swipe' },
            ]}
            value={visualLayout}
            onChange={setVisualLayout}
          />
          <VisualCompare
            layout={visualLayout}
            left={{
              html: a.html,
              caption: captions[0],
              title: `Version ${a.version}: ${a.subject || 'No Subject'}`,
            }}
            right={{
              html: b.html,
              caption: captions[1],
              title: `Version ${b.version}: ${b.subject || 'No Subject'}`,
            }}
          />
        </div>
      ),
    },
    {
      value: 'pixels',
      label: (
        <>
          <ScanEye aria-hidden="true" />
          Pixel Diff
        </>
      ),
      content: <PixelTab leftId={a.id} rightId={b.id} defaultWidth={renderWidth()} />,
    },
  ];

  return (
    <div className="space-y-6">
      <Link to={`/app/email/${b.id}`} className={backLink}>
        <ArrowLeft aria-hidden="true" />
        Back to Email
      </Link>
      <div className="space-y-3">
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl dark:text-white">
          Compare Versions
        </h1>
        <p className="text-sm break-words text-slate-600 dark:text-slate-400">{b.subject || 'No Subject'}</p>
        {sameThread ? (
          <div className="flex flex-wrap items-center gap-2" data-testid="compare-pickers">
            <SidePicker label="Left" email={a} versions={versions} onPick={pick('left')} />
            <ArrowRight aria-hidden="true" className="size-4 text-slate-400" />
            <SidePicker label="Right" email={b} versions={versions} onPick={pick('right')} />
          </div>
        ) : (
          <p
            role="note"
            className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-900/60 dark:bg-amber-950/40 dark:text-amber-200"
          >
            These are two different emails, not versions of one: “{a.subject || 'No Subject'}” on the left, “
            {b.subject || 'No Subject'}” on the right.
          </p>
        )}
        <OtherChanges a={a} b={b} />
      </div>
      <div ref={tabsBox}>
        <Tabs value={tab} onValueChange={selectTab}>
          {/* On a phone the four tabs do not fit: the list scrolls, and its edge says there is more. */}
          <TabsList scrollable className="max-sm:[&_svg]:hidden">
            {tabs.map((t) => (
              <TabsTrigger key={t.value} value={t.value}>
                {t.label}
              </TabsTrigger>
            ))}
          </TabsList>
          {tabs.map((t) => (
            <TabsContent key={t.value} value={t.value} tabIndex={-1}>
              {t.content}
            </TabsContent>
          ))}
        </Tabs>
      </div>
    </div>
  );
}
