import { ChevronDown, GitCompareArrows, History } from 'lucide-react';
import { useNavigate } from 'react-router';
import type { Email } from '../../../shared/contract/email.ts';
import { DropdownMenu, DropdownMenuItem } from '../../components/ui/dropdown-menu.tsx';
import { dateTime } from '../../lib/relative-time.ts';

/** `/app/email/{a}/compare/{b}`, the older version on the left. */
export function comparePath(email: Pick<Email, 'id' | 'version'>, other: { id: string; version: number }) {
  const [left, right] = email.version < other.version ? [email, other] : [other, email];
  return `/app/email/${left.id}/compare/${right.id}`;
}

function VersionLabel({ version }: { version: Email['versions'][number] }) {
  return (
    <span className="flex min-w-0 flex-col">
      <span className="font-medium">Version {version.version}</span>
      <span className="truncate text-xs text-slate-500 dark:text-slate-400">
        {dateTime(version.createdAt)} · {version.subject || 'No Subject'}
      </span>
    </span>
  );
}

/**
 * The versions of the email's thread (newest first): switch to another, each at its own URL, or
 * compare this one with another. Shown only when there is more than one.
 */
export function VersionPicker({ email }: { email: Email }) {
  const navigate = useNavigate();
  const others = email.versions.filter((v) => v.id !== email.id);
  if (others.length === 0) return null;
  const latest = email.versions[0]!;
  // The number is the version's own and stays when another is deleted, so it is not a position:
  // "Version 3 · 2 Versions" once version 2 is gone (never "Version 3 of 2"); Title Case, as
  // a control's words are (docs/copy-style.md), like "Delete 2 Versions".
  const current = `Version ${email.version} · ${email.versions.length} Versions`;
  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="version-picker">
      <DropdownMenu
        align="start"
        triggerVariant="outline"
        triggerSize="sm"
        label={`${current}. Switch version`}
        trigger={
          <>
            <History aria-hidden="true" />
            {current}
            <ChevronDown aria-hidden="true" />
          </>
        }
      >
        {email.versions.map((v) => (
          <DropdownMenuItem
            key={v.id}
            checked={v.id === email.id}
            onSelect={() => void navigate(`/app/email/${v.id}`)}
          >
            <VersionLabel version={v} />
          </DropdownMenuItem>
        ))}
      </DropdownMenu>
      <DropdownMenu
        align="start"
        triggerVariant="outline"
        triggerSize="sm"
        trigger={
          <>
            <GitCompareArrows aria-hidden="true" />
            Compare With…
            <ChevronDown aria-hidden="true" />
          </>
        }
      >
        {others.map((v) => (
          <DropdownMenuItem key={v.id} onSelect={() => void navigate(comparePath(email, v))}>
            <VersionLabel version={v} />
          </DropdownMenuItem>
        ))}
      </DropdownMenu>
      {latest.id !== email.id ? (
        <p className="text-xs text-slate-600 dark:text-slate-400" data-message="">
          A newer version exists: version {latest.version}.
        </p>
      ) : null}
    </div>
  );
}
