import {
  ArrowLeft,
  ArrowRight,
  ChevronDown,
  CircleCheck,
  Code,
  Eye,
  FileText,
  ScanEye,
  Send,
} from 'lucide-react';
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
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
import { differencesOf, mergeTagsOf, sampleDataOf, textOriginOf, type Change } from './compare-changes.ts';
import { SourceDiffView, type DiffLayout } from './source-diff-view.tsx';
import { PixelTab } from './pixel-tab.tsx';
import { VisualCompare, type VisualLayout } from './visual-compare.tsx';

const backLink = buttonClasses({ variant: 'ghost', size: 'sm', className: '-ml-3' });

/** A tab of the compare screen; `changed` when its texts differ between the two versions. */
interface CompareTab {
  value: string;
  label: ReactNode;
  changed?: boolean;
  content: ReactNode;
}

/** The sign on a tab that what it shows differs between the versions. */
function ChangedDot() {
  return (
    <>
      <span
        aria-hidden="true"
        title="Differs between the versions"
        data-testid="tab-changed"
        className="size-1.5 shrink-0 rounded-full bg-amber-500 dark:bg-amber-400"
      />
      <span className="sr-only">(changed)</span>
    </>
  );
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
 * What the text diffs do not show (compare-changes.ts: the subject, the recipients, the shared
 * headers, the options the source was written with, where the text part came from), listed when
 * they differ between the two sides (nothing when they are the same).
 */
function OtherChanges({ changes }: { changes: Change[] }) {
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
            <del className="inline-block text-red-700 decoration-red-400 dark:text-red-300">{c.from}</del>
            <span aria-hidden="true" className="px-1.5 text-slate-400">
              →
            </span>
            <span className="sr-only">changed to</span>
            <ins className="inline-block text-emerald-700 no-underline dark:text-emerald-300">{c.to}</ins>
          </dd>
        </div>
      ))}
    </dl>
  );
}

const narrow = () => typeof window !== 'undefined' && window.matchMedia('(max-width: 767px)').matches;

/**
 * /app/email/{id}/compare/{otherId}: two versions of an email, the left one (older) against the
 * right one. Tabs: the source as written with its merge tags' sample data, the HTML and the
 * plain-text part as sent (each side by side or inline, words marked inside changed lines), and
 * the two renders side by side or swiped. A tab whose texts differ is marked, the first such tab
 * opens, and what no tab shows is listed above them; the page says the versions are the same only
 * when nothing written or sent differs (docs/decisions/0122-compare-shows-the-text-part.md).
 */
export function ComparePage() {
  const { id = '', otherId = '' } = useParams();
  const navigate = useNavigate();
  const left = useEmail(id);
  const right = useEmail(otherId);
  // Null until a tab is chosen: the first tab with a difference is open.
  const [tab, setTab] = useState<string | null>(null);
  const [diffLayout, setDiffLayout] = useState<DiffLayout>(() => (narrow() ? 'inline' : 'split'));
  const [visualLayout, setVisualLayout] = useState<VisualLayout>('split');
  const [view, setView] = usePreviewView();
  const tabsBox = useRef<HTMLDivElement>(null);
  const error = left.error ?? right.error;
  const notFound = error instanceof ApiError && error.status === 404;
  const loaded = Boolean(left.data && right.data);
  useDocumentTitle('Compare Versions');

  // On a phone the tab list scrolls: the tab opened for its difference (not chosen) may lie past
  // its edge, under the sign that there is more. It is brought into view, clear of that sign.
  useLayoutEffect(() => {
    if (!loaded || tab !== null) return;
    const selected = tabsBox.current?.querySelector<HTMLElement>('[role="tab"][aria-selected="true"]');
    const list = selected?.closest<HTMLElement>('[role="tablist"]');
    if (!selected || !list || list.scrollWidth <= list.clientWidth) return;
    const room = 40; // the sign's width (ScrollHint in src/web/components/ui/tabs.tsx)
    const overflow = selected.getBoundingClientRect().right - list.getBoundingClientRect().right + room;
    if (overflow > 0) list.scrollLeft += overflow;
  }, [loaded, tab, id, otherId]);

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
  const differences = differencesOf(a, b);
  const openTab =
    tab ??
    (differences.written ? 'written' : differences.sent ? 'sent' : differences.text ? 'text' : 'written');
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
  // A side's caption with what it says of itself (where its text part came from, its merge tags).
  // One box each, so the inline layout's "left → right" breaks between the sides, not inside one.
  const captioned = (caption: ReactNode, detail: string) => (
    <span className="inline-block">
      {caption}
      <span className="font-normal text-slate-500 dark:text-slate-400"> · {detail}</span>
    </span>
  );
  const hasMergeTags = Boolean(a.source.template || b.source.template);
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
      changed: differences.written,
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
            what="source as written"
          />
          {hasMergeTags ? (
            <section
              aria-labelledby="compare-sample-data"
              className="space-y-3 pt-3"
              data-testid="sample-data-diff"
            >
              <div className="space-y-1">
                <h2 id="compare-sample-data" className="text-sm font-semibold text-slate-900 dark:text-white">
                  Sample Data
                </h2>
                <p className="text-sm text-slate-600 dark:text-slate-400">
                  The JSON that filled the merge tags, as the composer shows it.
                </p>
              </div>
              <SourceDiffView
                left={sampleDataOf(a)}
                right={sampleDataOf(b)}
                layout={diffLayout}
                captions={[
                  captioned(captions[0], a.source.template ? mergeTagsOf(a) : 'No merge tags'),
                  captioned(captions[1], b.source.template ? mergeTagsOf(b) : 'No merge tags'),
                ]}
                what="sample data"
              />
            </section>
          ) : null}
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
      changed: differences.sent,
      content: (
        <div className="space-y-3">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p className="text-sm text-slate-600 dark:text-slate-400">The HTML part as it was sent.</p>
            {layoutControl}
          </div>
          <SourceDiffView
            left={a.html}
            right={b.html}
            layout={diffLayout}
            captions={captions}
            what="HTML as sent"
          />
        </div>
      ),
    },
    {
      value: 'text',
      label: (
        <>
          <FileText aria-hidden="true" />
          Plain Text
        </>
      ),
      changed: differences.text,
      content: (
        <div className="space-y-3">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p className="text-sm text-slate-600 dark:text-slate-400">The plain-text part as it was sent.</p>
            {layoutControl}
          </div>
          <SourceDiffView
            left={a.text}
            right={b.text}
            layout={diffLayout}
            captions={[captioned(captions[0], textOriginOf(a)), captioned(captions[1], textOriginOf(b))]}
            what="plain-text part"
          />
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
        {differences.none ? (
          <p
            className="flex items-center gap-2 rounded-lg border border-slate-200 bg-white px-3 py-2 text-sm text-slate-700 dark:border-slate-800 dark:bg-slate-900 dark:text-slate-300"
            data-testid="compare-same"
          >
            <CircleCheck
              aria-hidden="true"
              className="size-4 shrink-0 text-emerald-600 dark:text-emerald-400"
            />
            {sameThread
              ? 'No differences: both versions are the same, as written and as sent.'
              : 'No differences: both emails are the same, as written and as sent.'}
          </p>
        ) : (
          <OtherChanges changes={differences.others} />
        )}
      </div>
      <div ref={tabsBox}>
        <Tabs value={openTab} onValueChange={selectTab}>
          {/* On a phone the five tabs do not fit: the list scrolls, and its edge says there is more. */}
          <TabsList scrollable className="max-sm:[&_svg]:hidden">
            {tabs.map((t) => (
              <TabsTrigger key={t.value} value={t.value}>
                {t.label}
                {t.changed ? <ChangedDot /> : null}
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
