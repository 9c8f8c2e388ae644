import { Eye, Globe, MoreHorizontal, Trash2 } from 'lucide-react';
import type { MouseEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import type { EmailSummary } from '../../../shared/contract/email.ts';
import { Badge } from '../../components/ui/badge.tsx';
import { cx, focusRing } from '../../components/ui/cx.ts';
import { DropdownMenu, DropdownMenuItem } from '../../components/ui/dropdown-menu.tsx';
import { EmailAddresses } from '../../components/ui/email-address.tsx';
import { dateTime, relativeTime } from '../../lib/relative-time.ts';
import { DeliveryIcon } from '../../components/delivery-state.tsx';
import { ReviewBadge } from '../../components/review/review-badge.tsx';
import { usePublicConfig } from '../../lib/public-config.ts';
import { Thumbnail } from './thumbnail.tsx';

export interface EmailListProps {
  emails: EmailSummary[];
  now: Date;
  onDelete: (email: EmailSummary) => void;
  /** Phones and small tablets get cards instead of the table. */
  compact: boolean;
  /** Show each email's thumbnail, where the server has a renderer (not for the sample rows). */
  thumbnails?: boolean;
}

const detailPath = (email: EmailSummary) => `/app/email/${email.id}`;

function ShareStatus({ email }: { email: EmailSummary }) {
  const share = email.isPublic ? (
    <Badge color="brand">
      <Globe aria-hidden="true" />
      Public Link
    </Badge>
  ) : (
    <Badge color="gray">Not Shared</Badge>
  );
  // The thread's latest review decision ("Approved v3").
  const review = email.latestDecision;
  if (!review) return share;
  return (
    <span className="inline-flex max-w-full flex-wrap items-center gap-1">
      {share}
      {/* The column fits "Changes requested v3" from lg up; narrower, the badge wraps inside it. */}
      <span className="flex max-w-full max-lg:*:rounded-lg max-lg:*:whitespace-normal">
        <ReviewBadge decision={review.decision} version={review.version} />
      </span>
    </span>
  );
}

function Subject({ email, className }: { email: EmailSummary; className?: string }) {
  return email.subject ? (
    <span className={cx('truncate', className)} title={email.subject}>
      {email.subject}
    </span>
  ) : (
    <span className={cx('truncate text-slate-500 italic dark:text-slate-400', className)}>No Subject</span>
  );
}

/** "v3" beside the subject of a thread with more than one version; nothing for a single version. */
function VersionBadge({ email }: { email: EmailSummary }) {
  if (email.versionCount < 2) return null;
  return (
    <Badge
      color="gray"
      className="shrink-0 tabular-nums"
      data-testid="version-badge"
      title={`Version ${email.version}, the latest of ${email.versionCount}`}
    >
      v{email.version}
    </Badge>
  );
}

/** In a search, when only an older version matched: which one, with a link to it. */
function MatchedVersion({ email }: { email: EmailSummary }) {
  if (!email.matched) return null;
  return (
    <Link
      to={`/app/email/${email.matched.id}`}
      data-testid="matched-version"
      className={cx(
        'shrink-0 rounded-sm text-xs text-brand-700 hover:underline dark:text-brand-300',
        focusRing,
      )}
    >
      Match in version {email.matched.version}
    </Link>
  );
}

function SentAt({ email, now }: { email: EmailSummary; now: Date }) {
  return (
    <time dateTime={email.createdAt} title={dateTime(email.createdAt)} className="whitespace-nowrap">
      {relativeTime(email.createdAt, now)}
    </time>
  );
}

function Actions({ email, onDelete }: { email: EmailSummary; onDelete: (email: EmailSummary) => void }) {
  const navigate = useNavigate();
  return (
    <div className="flex justify-end">
      <DropdownMenu
        label={`Actions for the email to ${email.to}`}
        trigger={<MoreHorizontal aria-hidden="true" />}
        triggerVariant="ghost"
        triggerSize="icon-sm"
      >
        <DropdownMenuItem icon={<Eye />} onSelect={() => void navigate(detailPath(email))}>
          View
        </DropdownMenuItem>
        <DropdownMenuItem icon={<Trash2 />} destructive onSelect={() => onDelete(email)}>
          Delete
        </DropdownMenuItem>
      </DropdownMenu>
    </div>
  );
}

/** A click anywhere on a row opens the email, unless it was on a link/button or selected text. */
function useOpenRow() {
  const navigate = useNavigate();
  return (email: EmailSummary) => (e: MouseEvent) => {
    if ((e.target as HTMLElement).closest('a, button, [role="menu"]')) return;
    if (window.getSelection()?.toString()) return;
    void navigate(detailPath(email));
  };
}

const toLink = cx(
  'block rounded-sm font-medium text-slate-900 hover:text-brand-700 hover:underline dark:text-white dark:hover:text-brand-300',
  focusRing,
);

/** The history table (docs/spec.md §2: icon, To, Status, Subject, Sent, actions); cards on phones. */
export function EmailList({ emails, now, onDelete, compact, thumbnails: wanted = false }: EmailListProps) {
  const openRow = useOpenRow();
  const thumbnails = usePublicConfig().data?.renderer === true && wanted;

  if (compact) {
    return (
      <ul className="divide-y divide-slate-200 dark:divide-slate-800" aria-label="Sent emails">
        {emails.map((email) => (
          <li
            key={email.id}
            data-testid="email-row"
            data-id={email.id}
            onClick={openRow(email)}
            className="flex cursor-pointer gap-3 px-4 py-4 transition-colors hover:bg-slate-50 dark:hover:bg-slate-800/50"
          >
            <DeliveryIcon delivery={email.delivery} className="mt-0.5" />
            <div className="min-w-0 flex-1 space-y-1">
              <Link to={detailPath(email)} className={toLink} title={email.to}>
                <EmailAddresses list={email.to} />
              </Link>
              <p className="flex min-w-0 items-center gap-2 text-sm text-slate-700 dark:text-slate-300">
                <Subject email={email} />
                <VersionBadge email={email} />
              </p>
              <div className="flex flex-wrap items-center gap-x-3 gap-y-1 pt-0.5 text-xs text-slate-500 dark:text-slate-400">
                <ShareStatus email={email} />
                <SentAt email={email} now={now} />
                <MatchedVersion email={email} />
              </div>
            </div>
            {thumbnails ? <Thumbnail emailId={email.id} className="h-16 w-12" /> : null}
            <Actions email={email} onDelete={onDelete} />
          </li>
        ))}
      </ul>
    );
  }

  return (
    <table className="w-full table-fixed text-left text-sm">
      <thead className="border-b border-slate-200 bg-slate-50/80 text-xs font-medium tracking-wide text-slate-500 uppercase dark:border-slate-800 dark:bg-slate-900/60 dark:text-slate-400">
        <tr>
          <th scope="col" className="w-14 py-3 pr-1 pl-5">
            <span className="sr-only">Delivery</span>
          </th>
          {/* Addresses wrap (EmailAddresses), so To can give the Status column what its badges need. */}
          <th scope="col" className="w-[22%] px-3 py-3 lg:w-[26%]">
            To
          </th>
          <th scope="col" className="w-36 px-3 py-3 lg:w-50">
            Status
          </th>
          <th scope="col" className="px-3 py-3">
            Subject
          </th>
          <th scope="col" className="w-32 px-3 py-3 lg:w-36">
            Sent
          </th>
          <th scope="col" className="w-14 py-3 pr-4 pl-1">
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
        {emails.map((email) => (
          <tr
            key={email.id}
            data-testid="email-row"
            data-id={email.id}
            onClick={openRow(email)}
            className="cursor-pointer transition-colors hover:bg-slate-50 dark:hover:bg-slate-800/50"
          >
            <td className="py-3 pr-1 pl-5">
              <DeliveryIcon delivery={email.delivery} />
            </td>
            <td className="px-3 py-3">
              <Link to={detailPath(email)} className={toLink} title={email.to}>
                <EmailAddresses list={email.to} />
              </Link>
            </td>
            <td className="px-3 py-3">
              <ShareStatus email={email} />
            </td>
            <td className="px-3 py-2.5">
              <div className="flex min-w-0 items-center gap-3">
                {thumbnails ? <Thumbnail emailId={email.id} className="h-12 w-9" /> : null}
                <div className="min-w-0 flex-1">
                  <div className="flex min-w-0 items-center gap-2 text-slate-700 dark:text-slate-300">
                    <Subject email={email} />
                    <VersionBadge email={email} />
                  </div>
                  {email.matched ? (
                    <div className="mt-0.5 flex">
                      <MatchedVersion email={email} />
                    </div>
                  ) : null}
                </div>
              </div>
            </td>
            <td className="px-3 py-3 text-slate-600 dark:text-slate-400">
              <SentAt email={email} now={now} />
            </td>
            <td className="py-3 pr-4 pl-1">
              <Actions email={email} onDelete={onDelete} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
