import { Eye, KeyRound, RefreshCw } from 'lucide-react';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { Email } from '../../../shared/contract/email.ts';
import type { ShareRequest } from '../../../shared/contract/review.ts';
import {
  REVIEW_MESSAGES,
  SHARE_PASSWORD_MAX,
  SHARE_PASSWORD_MIN,
  type ShareExpiryDays,
} from '../../../shared/review-rules.ts';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmDialog } from '../../components/ui/dialog.tsx';
import { FieldError } from '../../components/ui/input.tsx';
import { PasswordInput } from '../../components/ui/password-input.tsx';
import { SegmentedControl } from '../../components/ui/segmented-control.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { errorMessage } from '../../lib/api.ts';
import { dateTime, relativeTime } from '../../lib/relative-time.ts';
import { useRotateShare, useShareEmail } from './api.ts';

type ExpiryChoice = `${ShareExpiryDays}` | 'never';
/** How long the expiry choice must rest before it is saved: longer than a key's repeat. */
const EXPIRY_SAVE_DELAY_MS = 600;
const EXPIRY_OPTIONS: { value: ExpiryChoice; label: string }[] = [
  { value: '1', label: '1 Day' },
  { value: '7', label: '7 Days' },
  { value: '30', label: '30 Days' },
  { value: 'never', label: 'Never' },
];

/**
 * Who looked at the link, in the words the Share Link dialog and the Reviews panel
 * (reviews-panel.tsx) both use: "3 views · last viewed 5 minutes ago", "0 views · not opened yet".
 * One inline run of text, so a flex parent's gap cannot space its parts.
 */
export function ShareViews({ share, className }: { share: NonNullable<Email['share']>; className?: string }) {
  const views = share.views === 1 ? '1 view' : `${share.views} views`;
  return (
    <span className={className}>
      {views}
      {share.lastViewedAt ? (
        <>
          {' · last viewed '}
          <time dateTime={share.lastViewedAt} title={dateTime(share.lastViewedAt)}>
            {relativeTime(share.lastViewedAt, new Date())}
          </time>
        </>
      ) : (
        ' · not opened yet'
      )}
    </span>
  );
}

function Stats({ share }: { share: NonNullable<Email['share']> }) {
  return (
    <p
      className="flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400"
      data-testid="share-stats"
    >
      <Eye aria-hidden="true" className="size-4 shrink-0" />
      <ShareViews share={share} />
    </p>
  );
}

function PasswordForm({
  onSave,
  onCancel,
  busy,
}: {
  onSave: (p: string) => void;
  onCancel: () => void;
  busy: boolean;
}) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (value.length < SHARE_PASSWORD_MIN) return setError(REVIEW_MESSAGES.passwordShort);
    if (value.length > SHARE_PASSWORD_MAX) return setError(REVIEW_MESSAGES.passwordLong);
    onSave(value);
  };
  return (
    <form onSubmit={submit} className="space-y-2" noValidate>
      <label
        htmlFor="share-password"
        className="block text-sm font-medium text-slate-800 dark:text-slate-200"
      >
        New password
      </label>
      <div className="flex flex-col gap-2 sm:flex-row">
        <PasswordInput
          id="share-password"
          autoComplete="new-password"
          value={value}
          invalid={Boolean(error)}
          aria-describedby={error ? 'share-password-error' : undefined}
          onChange={(e) => {
            setValue(e.target.value);
            setError(null);
          }}
          autoFocus
        />
        <div className="flex gap-2">
          <Button type="submit" busy={busy}>
            Save Password
          </Button>
          <Button type="button" variant="ghost" onClick={onCancel} disabled={busy}>
            Cancel
          </Button>
        </div>
      </div>
      {error ? <FieldError id="share-password-error">{error}</FieldError> : null}
    </form>
  );
}

/**
 * The settings of a live link (docs/decisions/0083-share-per-thread.md): who looked, expiry,
 * a password for viewing, and Rotate Link. Each change is saved on its own: the expiry once the
 * choice rests, a password when saved, Rotate Link once confirmed.
 */
export function ShareSettings({ email }: { email: Email }) {
  const share = useShareEmail();
  const rotate = useRotateShare();
  const [expiry, setExpiry] = useState<ExpiryChoice | null>(null);
  const [editingPassword, setEditingPassword] = useState(false);
  const [confirmRotate, setConfirmRotate] = useState(false);
  const info = email.share;

  // The owner's last choice as the link keeps it.
  const kept: ExpiryChoice | null = !info
    ? null
    : info.expiresAt === null
      ? 'never'
      : info.expiresInDays
        ? `${info.expiresInDays as ShareExpiryDays}`
        : null;
  const keptRef = useRef(kept);
  useEffect(() => {
    keptRef.current = kept;
  });

  // An expiry choice is saved once the owner stops moving through the choices: arrow keys select
  // at every step (segmented-control.tsx), and each step saved would be a share call counted
  // against the owner's limit and a toast of its own.
  const pendingExpiry = useRef<{ timer: number; value: ExpiryChoice } | null>(null);
  const saveExpiry = useRef((value: ExpiryChoice) => {
    pendingExpiry.current = null;
    if (value === keptRef.current) return;
    // mutateAsync: the toast still comes when the dialog closed before the answer did.
    share
      .mutateAsync({
        id: email.id,
        settings: { expiresInDays: value === 'never' ? null : (Number(value) as ShareExpiryDays) },
      })
      .then(
        () =>
          toast.success(
            'Sharing updated',
            value === 'never'
              ? 'The link never expires'
              : `The link expires in ${value} day${value === '1' ? '' : 's'}`,
          ),
        (err: unknown) => {
          setExpiry(null);
          toast.error('Failed to update sharing', errorMessage(err));
        },
      );
  });
  const chooseExpiry = (value: ExpiryChoice) => {
    setExpiry(value);
    if (pendingExpiry.current) window.clearTimeout(pendingExpiry.current.timer);
    pendingExpiry.current = {
      value,
      timer: window.setTimeout(() => saveExpiry.current(value), EXPIRY_SAVE_DELAY_MS),
    };
  };
  // A choice still waiting when the dialog closes is saved then, not dropped.
  useEffect(
    () => () => {
      const pending = pendingExpiry.current;
      if (!pending) return;
      window.clearTimeout(pending.timer);
      saveExpiry.current(pending.value);
    },
    [],
  );

  if (!info) return null;

  const save = (settings: NonNullable<ShareRequest>, done: string, after?: () => void) =>
    share.mutate(
      { id: email.id, settings },
      {
        onSuccess: () => {
          toast.success('Sharing updated', done);
          after?.();
        },
        onError: (err) => toast.error('Failed to update sharing', errorMessage(err)),
      },
    );

  // The owner's last choice: just made here, or as the link keeps it.
  const shownExpiry = expiry ?? kept;

  return (
    <div className="space-y-4 border-t border-slate-200 pt-4 dark:border-slate-800">
      <Stats share={info} />

      <div className="space-y-2">
        <p id="share-expiry-label" className="text-sm font-medium text-slate-800 dark:text-slate-200">
          Link expires
        </p>
        <SegmentedControl
          label="Link expires after"
          options={EXPIRY_OPTIONS}
          value={shownExpiry}
          onChange={chooseExpiry}
        />
        <p className="text-sm text-slate-500 dark:text-slate-400" data-testid="share-expiry">
          {info.expiresAt ? `Expires ${dateTime(info.expiresAt)}` : 'Never expires'}
        </p>
      </div>

      <div className="space-y-2">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <p className="flex items-center gap-2 text-sm font-medium text-slate-800 dark:text-slate-200">
            <KeyRound aria-hidden="true" className="size-4" />
            <span data-testid="share-password-state">
              {info.protected ? 'Password protected' : 'No password'}
            </span>
          </p>
          {editingPassword ? null : (
            <div className="flex gap-2">
              <Button size="sm" variant="outline" onClick={() => setEditingPassword(true)}>
                {info.protected ? 'Change Password' : 'Set Password'}
              </Button>
              {info.protected ? (
                <Button
                  size="sm"
                  variant="ghost"
                  busy={share.isPending && share.variables?.settings?.password === null}
                  onClick={() => save({ password: null }, 'Anyone with the link can view it again')}
                >
                  Remove Password
                </Button>
              ) : null}
            </div>
          )}
        </div>
        <p className="text-sm text-slate-500 dark:text-slate-400">
          {info.protected
            ? 'Viewers must type the password before they see the email.'
            : 'Add a password so only people you give it to can view the email.'}
        </p>
        {editingPassword ? (
          <PasswordForm
            busy={share.isPending}
            onCancel={() => setEditingPassword(false)}
            onSave={(password) =>
              save({ password }, 'Viewers need the new password', () => setEditingPassword(false))
            }
          />
        ) : null}
      </div>

      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-slate-500 dark:text-slate-400">Leaked? Give the email a new address.</p>
        <Button size="sm" variant="outline" onClick={() => setConfirmRotate(true)}>
          <RefreshCw aria-hidden="true" />
          Rotate Link
        </Button>
      </div>

      <ConfirmDialog
        open={confirmRotate}
        onOpenChange={setConfirmRotate}
        title="Rotate Link?"
        description="The current link stops working at once. Anyone you sent it to will need the new one."
        confirmLabel="Rotate Link"
        busy={rotate.isPending}
        destructive
        onConfirm={() =>
          rotate.mutate(email.id, {
            onSuccess: () => {
              setConfirmRotate(false);
              toast.success('Link rotated', 'The old link no longer works');
            },
            onError: (err) => toast.error('Failed to rotate the link', errorMessage(err)),
          })
        }
      />
    </div>
  );
}
