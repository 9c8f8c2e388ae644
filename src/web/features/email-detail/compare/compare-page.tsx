import { ArrowLeft, ArrowRight, ChevronDown, Code, Eye, ScanEye, Send } from 'lucide-react';
import { useEffect, useState, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { Email } from '../../../../shared/contract/email.ts';
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
  const captions: [ReactNode, ReactNode] = [`Version ${a.version}`, `Version ${b.version}`];
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
      content: <PixelTab leftId={a.id} rightId={b.id} />,
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
        <div className="flex flex-wrap items-center gap-2" data-testid="compare-pickers">
          <SidePicker label="Left" email={a} versions={versions} onPick={pick('left')} />
          <ArrowRight aria-hidden="true" className="size-4 text-slate-400" />
          <SidePicker label="Right" email={b} versions={versions} onPick={pick('right')} />
        </div>
      </div>
      <Tabs value={tab} onValueChange={setTab}>
        <TabsList className="max-w-full overflow-x-auto max-sm:[&_svg]:hidden">
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
  );
}
