import { ExternalLink, Inbox, MailWarning, RefreshCw, Search, Trash2 } from 'lucide-react';
import { useMemo, useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import type { CaughtMessage, CaughtMessageDetail } from '../../../shared/contract/dev-mailbox.ts';
import { Logo } from '../../components/layout/logo.tsx';
import { useDocumentTitle } from '../../components/layout/use-document-title.ts';
import { Badge } from '../../components/ui/badge.tsx';
import { EmailPreview } from '../../components/email-preview/email-preview.tsx';
import { Button } from '../../components/ui/button.tsx';
import { cx, focusRing } from '../../components/ui/cx.ts';
import { ConfirmDialog } from '../../components/ui/dialog.tsx';
import { Input } from '../../components/ui/input.tsx';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '../../components/ui/tabs.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { ApiError, errorMessage } from '../../lib/api.ts';
import { formatBytes } from '../../lib/format-size.ts';
import { MAILBOX_PAGE_SIZE, useClearMailbox, useMailbox, useMailboxMessage } from './api.ts';

/**
 * /dev/mailbox: the mail the local catcher received (no SMTP_URL), for this machine only. A
 * caught mail's HTML may be anyone's (test sends), so it is shown like every email, only through
 * EmailPreview (docs/architecture.md §1.7).
 */

const timeFormat = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

function shortTime(iso: string): string {
  const d = new Date(iso);
  return d.toDateString() === new Date().toDateString() ? timeFormat.format(d) : dateTimeFormat.format(d);
}

/** The http(s) links of a mail, so flows like "verify your email" can be followed from here. */
function linksOf(html: string | null): string[] {
  if (!html) return [];
  // DOMParser builds an inert document: no script runs, nothing is fetched.
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const links = new Set<string>();
  for (const a of Array.from(doc.querySelectorAll('a[href]'))) {
    try {
      const url = new URL(a.getAttribute('href') ?? '');
      if (url.protocol === 'http:' || url.protocol === 'https:') links.add(url.href);
    } catch {
      // relative or malformed: nothing to open
    }
    if (links.size >= 20) break;
  }
  return [...links];
}

function matches(m: CaughtMessage, q: string): boolean {
  const needle = q.trim().toLowerCase();
  if (!needle) return true;
  return [m.subject, m.from, ...m.to].some((v) => v.toLowerCase().includes(needle));
}

export function MailboxPage() {
  useDocumentTitle('Local Mailbox');
  const mailbox = useMailbox();
  const clear = useClearMailbox();
  const [params, setParams] = useSearchParams();
  const [filter, setFilter] = useState('');
  const [confirming, setConfirming] = useState(false);

  const messages = useMemo(() => mailbox.data?.messages ?? [], [mailbox.data]);
  const visible = useMemo(() => messages.filter((m) => matches(m, filter)), [messages, filter]);
  // The one in the address (?id=), else the newest shown (e.g. after the linked one was deleted).
  const selected = messages.find((m) => m.id === params.get('id')) ?? visible[0];

  const select = (id: string) => setParams({ id }, { replace: true });

  const onClear = () => {
    clear.mutate(undefined, {
      onSuccess: ({ deleted }) => {
        setConfirming(false);
        setParams({}, { replace: true });
        toast.success('Mailbox emptied', `${deleted} message${deleted === 1 ? '' : 's'} deleted.`);
      },
      onError: (err) => toast.error('Could not empty the mailbox', errorMessage(err)),
    });
  };

  const unavailable = mailbox.error instanceof ApiError && mailbox.error.status === 404;

  return (
    <div className="flex min-h-screen flex-col bg-slate-50 dark:bg-slate-950">
      <header className="sticky top-0 z-10 border-b border-slate-200 bg-white/90 backdrop-blur dark:border-slate-800 dark:bg-slate-900/90">
        <div className="flex flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 sm:px-6">
          <Logo />
          <div className="flex min-w-0 items-center gap-2">
            <h1 className="text-base font-semibold text-slate-900 dark:text-white">Local Mailbox</h1>
            <Badge color="yellow">Caught locally · not delivered</Badge>
          </div>
          <div className="ml-auto flex items-center gap-2">
            {mailbox.data ? (
              <span
                className="hidden text-sm text-slate-500 sm:inline dark:text-slate-400"
                aria-live="polite"
              >
                {messages.length >= MAILBOX_PAGE_SIZE
                  ? `Newest ${MAILBOX_PAGE_SIZE} messages`
                  : `${messages.length} message${messages.length === 1 ? '' : 's'}`}
              </span>
            ) : null}
            <Button
              variant="outline"
              size="sm"
              onClick={() => void mailbox.refetch()}
              disabled={unavailable}
              aria-label="Refresh"
            >
              <RefreshCw className={cx(mailbox.isFetching && 'animate-spin')} aria-hidden="true" />
              <span className="hidden sm:inline">Refresh</span>
            </Button>
            <Button
              variant="outline"
              size="sm"
              onClick={() => setConfirming(true)}
              disabled={messages.length === 0}
              aria-label="Delete All"
            >
              <Trash2 aria-hidden="true" />
              <span className="hidden sm:inline">Delete All</span>
            </Button>
          </div>
        </div>
      </header>

      {unavailable ? (
        <Notice
          icon={<MailWarning className="size-8" aria-hidden="true" />}
          title="The local mailbox is not available"
          text="It exists only while Proofmail runs without SMTP_URL (mail then goes to the built-in catcher), and only for browsers on the same machine."
        />
      ) : mailbox.isError ? (
        <Notice
          icon={<MailWarning className="size-8" aria-hidden="true" />}
          title="Could not load the mailbox"
          text={errorMessage(mailbox.error)}
          action={<Button onClick={() => void mailbox.refetch()}>Try Again</Button>}
        />
      ) : mailbox.isPending ? (
        <div
          className="grid flex-1 gap-4 p-4 sm:p-6 lg:grid-cols-[360px_1fr]"
          aria-busy="true"
          aria-label="Loading mail"
        >
          <div className="space-y-2">
            {[0, 1, 2, 3].map((i) => (
              <Skeleton key={i} className="block h-16 w-full" />
            ))}
          </div>
          <Skeleton className="block h-96 w-full" />
        </div>
      ) : messages.length === 0 ? (
        <Notice
          icon={<Inbox className="size-8" aria-hidden="true" />}
          title="No mail caught yet"
          text="Mail Proofmail sends — verification links, password resets, test sends — appears here within a few seconds. Nothing leaves this machine."
        />
      ) : (
        // One track that can shrink below its content on narrow screens: without it the rows'
        // truncated lines set the grid's width, and the page scrolled sideways.
        <div className="grid flex-1 grid-cols-[minmax(0,1fr)] lg:grid-cols-[minmax(280px,380px)_minmax(0,1fr)]">
          <aside
            className="min-w-0 border-b border-slate-200 lg:border-r lg:border-b-0 dark:border-slate-800"
            aria-label="Caught mail"
          >
            <div className="border-b border-slate-200 p-3 dark:border-slate-800">
              <label htmlFor="mailbox-filter" className="sr-only">
                Filter by subject, sender or recipient
              </label>
              <div className="relative">
                <Search
                  className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-400"
                  aria-hidden="true"
                />
                <Input
                  id="mailbox-filter"
                  type="search"
                  value={filter}
                  onChange={(e) => setFilter(e.target.value)}
                  placeholder="Filter by subject, sender or recipient"
                  className="pl-9"
                />
              </div>
            </div>
            <ul className="max-h-[40vh] overflow-y-auto lg:max-h-[calc(100vh-8.5rem)]">
              {visible.map((m) => (
                <li key={m.id}>
                  <button
                    type="button"
                    onClick={() => select(m.id)}
                    aria-current={m.id === selected?.id ? 'true' : undefined}
                    className={cx(
                      'block w-full border-b border-slate-100 px-4 py-3 text-left transition-colors dark:border-slate-800/70',
                      focusRing,
                      m.id === selected?.id
                        ? 'bg-brand-50 dark:bg-brand-950/40'
                        : 'hover:bg-white dark:hover:bg-slate-900',
                    )}
                  >
                    <span className="flex items-baseline justify-between gap-3">
                      <span className="truncate text-sm font-medium text-slate-900 dark:text-slate-100">
                        {m.to.join(', ')}
                      </span>
                      <time
                        dateTime={m.receivedAt}
                        className="shrink-0 text-xs text-slate-600 tabular-nums dark:text-slate-400"
                      >
                        {shortTime(m.receivedAt)}
                      </time>
                    </span>
                    <span className="mt-0.5 block truncate text-sm text-slate-700 dark:text-slate-300">
                      {m.subject || '(no subject)'}
                    </span>
                    <span className="mt-0.5 block truncate text-xs text-slate-600 dark:text-slate-400">
                      from {m.from}
                    </span>
                  </button>
                </li>
              ))}
              {visible.length === 0 ? (
                <li className="px-4 py-6 text-center text-sm text-slate-500 dark:text-slate-400">
                  No mail matches “{filter}”.
                </li>
              ) : null}
            </ul>
          </aside>
          <main className="min-w-0 p-4 sm:p-6">
            {selected ? <MessageView key={selected.id} message={selected} /> : null}
          </main>
        </div>
      )}

      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title="Delete All Caught Mail?"
        description="This empties the local mailbox. It cannot be undone."
        confirmLabel="Delete All"
        onConfirm={onClear}
        busy={clear.isPending}
        destructive
      />
    </div>
  );
}

function Notice({
  icon,
  title,
  text,
  action,
}: {
  icon: ReactNode;
  title: string;
  text: string;
  action?: ReactNode;
}) {
  return (
    // A message, so its title is in sentence case (docs/copy-style.md).
    <div data-message="" className="flex flex-1 items-center justify-center p-6">
      <div className="max-w-md text-center">
        <div className="mx-auto mb-4 flex size-14 items-center justify-center rounded-full bg-slate-100 text-slate-500 dark:bg-slate-800 dark:text-slate-400">
          {icon}
        </div>
        <h2 className="text-lg font-semibold text-slate-900 dark:text-white">{title}</h2>
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{text}</p>
        {action ? <div className="mt-5">{action}</div> : null}
      </div>
    </div>
  );
}

/** A listed mail: its summary from the list, its parts and headers read on their own (one mail may be 1 MB). */
function MessageView({ message }: { message: CaughtMessage }) {
  const detail = useMailboxMessage(message.id);
  const full: Partial<CaughtMessageDetail> = detail.data ?? {};
  const [chosen, setTab] = useState<string | null>(null);
  const tab = chosen ?? (detail.data && !detail.data.html ? 'text' : 'html');
  const links = useMemo(() => linksOf(full.html ?? null), [full.html]);
  const pending = detail.isPending ? (
    <Skeleton className="block h-48 w-full" />
  ) : detail.isError ? (
    <p className="text-sm text-red-700 dark:text-red-400">{errorMessage(detail.error)}</p>
  ) : null;

  return (
    <article className="mx-auto max-w-4xl" aria-labelledby="message-subject">
      <h2 id="message-subject" className="text-xl font-semibold break-words text-slate-900 dark:text-white">
        {message.subject || '(no subject)'}
      </h2>
      <dl className="mt-3 grid grid-cols-[auto_1fr] items-baseline gap-x-4 gap-y-1 text-sm">
        <dt className="text-slate-500 dark:text-slate-400">From</dt>
        <dd className="break-words text-slate-900 dark:text-slate-100">{message.from}</dd>
        <dt className="text-slate-500 dark:text-slate-400">To</dt>
        <dd className="break-words text-slate-900 dark:text-slate-100">{message.to.join(', ')}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Received</dt>
        <dd className="text-slate-900 dark:text-slate-100">
          <time dateTime={message.receivedAt}>{dateTimeFormat.format(new Date(message.receivedAt))}</time>
          {full.size !== undefined ? (
            <span className="text-slate-500 dark:text-slate-400"> · {formatBytes(full.size)}</span>
          ) : null}
        </dd>
        {full.messageId ? (
          <>
            <dt className="text-slate-500 dark:text-slate-400">Message-ID</dt>
            <dd className="font-mono text-xs break-all text-slate-700 dark:text-slate-300">
              {full.messageId}
            </dd>
          </>
        ) : null}
      </dl>

      {links.length > 0 ? (
        <section
          className="mt-4 rounded-lg border border-slate-200 bg-white p-3 dark:border-slate-800 dark:bg-slate-900"
          aria-label="Links in this mail"
        >
          <h3 className="text-xs font-semibold tracking-wide text-slate-500 uppercase dark:text-slate-400">
            Links in This Mail
          </h3>
          <ul className="mt-2 space-y-1">
            {links.map((href) => (
              <li key={href} className="min-w-0">
                <a
                  href={href}
                  target="_blank"
                  rel="noopener noreferrer"
                  className={cx(
                    'inline-flex max-w-full items-center gap-1.5 rounded text-sm text-brand-700 hover:underline dark:text-brand-300',
                    focusRing,
                  )}
                >
                  <ExternalLink className="size-3.5 shrink-0" aria-hidden="true" />
                  <span className="truncate font-mono text-xs">{href}</span>
                </a>
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <Tabs value={tab} onValueChange={setTab} className="mt-5">
        <TabsList aria-label="View">
          <TabsTrigger value="html" disabled={Boolean(detail.data) && !full.html}>
            HTML
          </TabsTrigger>
          <TabsTrigger value="text" disabled={Boolean(detail.data) && !full.text}>
            Text
          </TabsTrigger>
          <TabsTrigger value="headers">Headers</TabsTrigger>
        </TabsList>
        <TabsContent value="html">
          {pending ??
            (full.html ? (
              <EmailPreview html={full.html} title={`Mail preview: ${message.subject || '(no subject)'}`} />
            ) : null)}
        </TabsContent>
        <TabsContent value="text">
          {pending ?? (
            <pre className="max-h-[70vh] overflow-auto rounded-lg border border-slate-200 bg-white p-4 font-mono text-sm whitespace-pre-wrap break-words text-slate-800 dark:border-slate-800 dark:bg-slate-900 dark:text-slate-200">
              {full.text ?? ''}
            </pre>
          )}
        </TabsContent>
        <TabsContent value="headers">
          {pending ?? (
            <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
              <table className="w-full text-left font-mono text-xs">
                <tbody>
                  {(full.headers ?? []).map((h, i) => (
                    <tr key={i} className="border-b border-slate-100 last:border-0 dark:border-slate-800">
                      <th
                        scope="row"
                        className="py-1.5 pr-3 pl-3 align-top font-semibold whitespace-nowrap text-slate-700 dark:text-slate-300"
                      >
                        {h.name}
                      </th>
                      <td className="py-1.5 pr-3 break-all text-slate-600 dark:text-slate-400">{h.value}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </TabsContent>
      </Tabs>
    </article>
  );
}
