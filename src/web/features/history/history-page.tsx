import { CircleAlert, Inbox, Search, SearchX, Send, X } from 'lucide-react';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { EmailSummary } from '../../../shared/contract/email.ts';
import { Button, buttonClasses } from '../../components/ui/button.tsx';
import { Card } from '../../components/ui/card.tsx';
import { cx } from '../../components/ui/cx.ts';
import { ConfirmDialog } from '../../components/ui/dialog.tsx';
import { Input } from '../../components/ui/input.tsx';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { Spinner } from '../../components/ui/spinner.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { ApiError, errorMessage } from '../../lib/api.ts';
import { AppPageHeader } from '../../components/layout/app-page-header.tsx';
import { useSession } from '../../lib/session.ts';
import { useDeleteEmail, useEmailList } from './api.ts';
import { EmailList } from './email-list.tsx';
import { UpgradeOverlay } from './upgrade-overlay.tsx';
import { useMediaQuery } from './use-media-query.ts';
import { searchStatus } from './search-status.ts';
import { useNow } from './use-now.ts';

const SEARCH_DEBOUNCE_MS = 300;

/**
 * The search box's text, kept in the URL as ?q= (debounced) so a search survives reloads, the
 * back button and shared links. Returns the text, its setter, the settled query and a reset.
 */
function useSearchQuery() {
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const [text, setText] = useState(q);
  const [seenQ, setSeenQ] = useState(q);
  if (q !== seenQ) {
    // The URL changed from outside (back button, Clear search): show what it says.
    setSeenQ(q);
    if (q !== text) setText(q);
  }
  useEffect(() => {
    if (text === q) return;
    const timer = window.setTimeout(() => {
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          if (text.trim()) next.set('q', text);
          else next.delete('q');
          return next;
        },
        { replace: true },
      );
    }, SEARCH_DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [text, q, setParams]);
  const clear = () => {
    setText('');
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        next.delete('q');
        return next;
      },
      { replace: true },
    );
  };
  return { text, setText, query: q.trim(), clear };
}

function SkeletonRows() {
  return (
    <div aria-hidden="true" className="divide-y divide-slate-200 dark:divide-slate-800">
      {Array.from({ length: 6 }, (_, i) => (
        <div key={i} className="flex items-center gap-4 px-5 py-3.5">
          <Skeleton className="size-8 rounded-full" />
          <Skeleton className="h-4 w-1/4" />
          <Skeleton className="hidden h-5 w-20 rounded-full sm:inline-block" />
          <Skeleton className="h-4 flex-1" />
          <Skeleton className="hidden h-4 w-20 sm:inline-block" />
        </div>
      ))}
    </div>
  );
}

function EmptyState({
  icon,
  title,
  text,
  action,
}: {
  icon: ReactNode;
  title: string;
  text: string;
  action: ReactNode;
}) {
  return (
    // A message, so its title is in sentence case like the spec's (docs/copy-style.md).
    <div data-message="" className="flex flex-col items-center gap-3 px-6 py-16 text-center">
      <span className="flex size-12 items-center justify-center rounded-full bg-slate-100 text-slate-500 dark:bg-slate-800 dark:text-slate-400 [&_svg]:size-6">
        {icon}
      </span>
      <h2 className="text-base font-semibold text-slate-900 dark:text-white">{title}</h2>
      <p className="max-w-sm text-sm text-slate-600 dark:text-slate-400">{text}</p>
      <div className="mt-2">{action}</div>
    </div>
  );
}

/** /app/history, titled Emails (docs/spec.md §2). */
export function HistoryPage() {
  const { user } = useSession();
  const isFree = (user?.plan ?? '').toLowerCase() === 'free';
  const compact = !useMediaQuery('(min-width: 768px)'); // cards below md: the table needs the room
  const now = useNow();
  const search = useSearchQuery();
  const list = useEmailList(search.query, Boolean(user) && !isFree);
  const remove = useDeleteEmail();
  const [toDelete, setToDelete] = useState<EmailSummary | null>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLDivElement>(null);

  // The server's word wins: a plan that changed since the page loaded still gets the overlay.
  const planRequired = list.error instanceof ApiError && list.error.code === 'plan_required';
  const locked = isFree || planRequired;
  const failure = list.isError && !planRequired ? list.error : null;
  useEffect(() => {
    if (failure) toast.error('Failed to load emails', errorMessage(failure));
  }, [failure]);
  // In the page only when there is nothing (current) to show; a failed Load More keeps the list.
  const loadError =
    failure && !list.isFetchNextPageError && (!list.data || list.isPlaceholderData) ? failure : null;

  const emails = list.data?.pages.flatMap((p) => p.items) ?? [];
  const searching = list.isFetching && !list.isFetchingNextPage && list.isPlaceholderData;

  // What a search found, said in a polite status once the list shows the query's own result; not
  // on the first load (nothing was searched yet), nor when Load More adds to the same result.
  const settled = Boolean(list.data) && !list.isPlaceholderData && !locked && !loadError;
  const [status, setStatus] = useState<{ query: string | null; text: string }>({ query: null, text: '' });
  if (settled && status.query !== search.query) {
    const firstPage = list.data?.pages[0]?.items.length ?? 0;
    const more = (list.data?.pages.length ?? 0) > 1 || list.hasNextPage;
    setStatus({
      query: search.query,
      text: status.query === null ? '' : searchStatus(search.query, firstPage, more),
    });
  }

  // The button goes with the last page, and the focus with it: it moves to the first row loaded,
  // where reading (or tabbing) goes on. Not when the user has gone elsewhere since.
  const focusRow = useRef<number | null>(null);
  const loadMore = () => {
    focusRow.current = emails.length;
    void list.fetchNextPage().then((result) => {
      if (result.isError) focusRow.current = null;
    });
  };
  useEffect(() => {
    const at = focusRow.current;
    if (at === null || emails.length <= at) return;
    focusRow.current = null;
    const active = document.activeElement;
    if (active && active !== document.body && !active.closest('[data-load-more]')) return;
    const row = listRef.current?.querySelectorAll('[data-testid="email-row"]')[at];
    row?.querySelector<HTMLElement>('a[href]')?.focus();
  }, [emails.length]);

  const confirmDelete = () => {
    if (!toDelete) return;
    remove.mutate(toDelete, {
      onSuccess: () => {
        toast.success('Email deleted');
        setToDelete(null);
        // The row and its Actions button, where the dialog would give focus back, are gone: the
        // list's search box keeps the keyboard in the list (after the dialog has closed).
        requestAnimationFrame(() => searchRef.current?.focus());
      },
      onError: (err) => {
        toast.error('Failed to delete email', errorMessage(err));
        setToDelete(null);
      },
    });
  };

  let body: ReactNode;
  if (locked) {
    body = <UpgradeOverlay now={now} compact={compact} />;
  } else if (loadError) {
    body = (
      <div className="flex flex-col items-center gap-4 px-6 py-14 text-center">
        <span className="flex size-12 items-center justify-center rounded-full bg-red-100 text-red-700 dark:bg-red-950/70 dark:text-red-400">
          <CircleAlert aria-hidden="true" className="size-6" />
        </span>
        <div role="alert" className="space-y-1">
          <p className="font-semibold text-slate-900 dark:text-white">Failed to load emails</p>
          <p className="text-sm text-slate-600 dark:text-slate-400">{errorMessage(loadError)}</p>
        </div>
        <Button
          variant="outline"
          busy={list.isFetching}
          onClick={() => {
            // The failure gives way to the list while it loads again, and this button with it: the
            // keyboard goes to the search box, where a search that failed can be changed.
            searchRef.current?.focus();
            void list.refetch();
          }}
        >
          Try Again
        </Button>
      </div>
    );
  } else if (!list.data) {
    body = <SkeletonRows />;
  } else if (emails.length === 0 && search.query) {
    body = (
      <EmptyState
        icon={<SearchX aria-hidden="true" />}
        title="No emails found matching the query"
        text={`Nothing you sent matches “${search.query}” in its recipients, subject or HTML.`}
        action={
          <Button
            variant="outline"
            onClick={() => {
              search.clear();
              searchRef.current?.focus();
            }}
          >
            Clear search
          </Button>
        }
      />
    );
  } else if (emails.length === 0) {
    body = (
      <EmptyState
        icon={<Inbox aria-hidden="true" />}
        title="No emails sent yet"
        text="Every test you send is kept here, so you can find it, preview it and share it with a client."
        action={
          <Link to="/app/send" className={buttonClasses()}>
            <Send aria-hidden="true" />
            Send Test Email
          </Link>
        }
      />
    );
  } else {
    body = (
      <>
        <div ref={listRef} className={cx('transition-opacity', searching && 'opacity-60')}>
          <EmailList emails={emails} now={now} compact={compact} onDelete={setToDelete} thumbnails />
        </div>
        {list.hasNextPage ? (
          <div
            data-load-more=""
            className="flex justify-center border-t border-slate-200 p-4 dark:border-slate-800"
          >
            <Button variant="outline" busy={list.isFetchingNextPage} busyLabel="Loading…" onClick={loadMore}>
              Load More
            </Button>
          </div>
        ) : null}
      </>
    );
  }

  return (
    <>
      <AppPageHeader
        title="Emails"
        description="Every test email you sent, newest first."
        actions={
          <Link to="/app/send" className={buttonClasses({ variant: 'outline', size: 'sm' })}>
            <Send aria-hidden="true" />
            New Email
          </Link>
        }
      />
      <Card className="overflow-visible">
        <div className="border-b border-slate-200 p-4 dark:border-slate-800">
          <div className="relative max-w-md">
            <Search
              aria-hidden="true"
              className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-400"
            />
            <Input
              ref={searchRef}
              type="search"
              aria-label="Search emails"
              placeholder="Recipient, subject or HTML"
              value={search.text}
              onChange={(e) => search.setText(e.target.value)}
              disabled={locked}
              maxLength={200}
              className="pr-10 pl-9 [&::-webkit-search-cancel-button]:hidden"
            />
            <span className="absolute top-1/2 right-2 flex -translate-y-1/2 items-center">
              {searching ? (
                <Spinner className="size-4 text-slate-400" label="Searching" />
              ) : search.text ? (
                <button
                  type="button"
                  aria-label="Clear search box"
                  onClick={() => {
                    search.clear();
                    searchRef.current?.focus();
                  }}
                  className="rounded-md p-1 text-slate-400 hover:bg-slate-100 hover:text-slate-700 dark:hover:bg-slate-800 dark:hover:text-slate-200"
                >
                  <X aria-hidden="true" className="size-4" />
                </button>
              ) : null}
            </span>
          </div>
        </div>
        {body}
      </Card>
      {/* Always in the page, so what is put in it is read out; the key makes a repeated text
          (two searches finding as many) a new one. */}
      <p role="status" aria-live="polite" className="sr-only" data-testid="search-status">
        {status.text ? <span key={status.query}>{status.text}</span> : null}
      </p>

      <ConfirmDialog
        open={toDelete !== null}
        onOpenChange={(open) => {
          if (!open) setToDelete(null);
        }}
        title="Delete Email"
        description={
          toDelete && toDelete.versionCount > 1
            ? `Are you sure you want to delete all ${toDelete.versionCount} versions of this email?`
            : 'Are you sure you want to delete this email?'
        }
        confirmLabel={
          toDelete && toDelete.versionCount > 1 ? `Delete ${toDelete.versionCount} Versions` : 'Delete'
        }
        destructive
        busy={remove.isPending}
        onConfirm={confirmDelete}
      />
    </>
  );
}
