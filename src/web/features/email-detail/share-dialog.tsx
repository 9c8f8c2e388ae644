import { Check, Clock, Copy, ExternalLink, KeyRound, Lock, Sparkles } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import type { Email } from '../../../shared/contract/email.ts';
import { renewedExpiryDays } from '../../../shared/contract/review.ts';
import { COPIED_INDICATOR_MS } from '../../../shared/plans.ts';
import { Button, buttonClasses } from '../../components/ui/button.tsx';
import { ConfirmDialog, Dialog } from '../../components/ui/dialog.tsx';
import { Input } from '../../components/ui/input.tsx';
import { Switch } from '../../components/ui/switch.tsx';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '../../components/ui/tabs.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { errorMessage } from '../../lib/api.ts';
import { useShareEmail, useUnshareEmail } from './api.ts';
import { copyText } from '../../lib/copy-text.ts';
import { dateTime } from '../../lib/relative-time.ts';
import { ShareSettings } from './share-settings.tsx';

function ComingSoon({ what }: { what: string }) {
  return (
    <div className="flex flex-col items-center gap-2 rounded-lg border border-dashed border-slate-300 px-4 py-8 text-center dark:border-slate-700">
      <Sparkles aria-hidden="true" className="size-5 text-brand-600 dark:text-brand-400" />
      <p className="text-sm font-medium text-slate-900 dark:text-white">Coming soon</p>
      <p className="text-sm text-slate-600 dark:text-slate-400">{what}</p>
    </div>
  );
}

/**
 * An expired link, and what turning sharing on makes instead: a new address with the dead link's
 * password and an expiry of the same length from then. The server does exactly this when the call
 * names no settings (`renewedExpiryDays`, src/shared/contract/review.ts;
 * docs/decisions/0123-renewed-link-keeps-its-protection.md), so what is said here is what happens.
 */
function ExpiredLink({ share, expiredAt }: { share: NonNullable<Email['share']>; expiredAt: string }) {
  const days = renewedExpiryDays(share.expiresInDays);
  return (
    <div
      className="rounded-lg bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200 dark:bg-amber-950/40 dark:text-amber-100 dark:ring-amber-800/60"
      data-testid="share-expired"
    >
      <p className="font-medium">
        The link expired{' '}
        <time dateTime={expiredAt} className="whitespace-nowrap">
          {dateTime(expiredAt)}
        </time>
        .
      </p>
      <p id="share-renewal" className="mt-1">
        Turn sharing on to make a new link:
      </p>
      <ul aria-labelledby="share-renewal" className="mt-2 space-y-1.5">
        <li className="flex items-center gap-2">
          <Clock aria-hidden="true" className="size-4 shrink-0" />
          {`Expires in ${days} day${days === 1 ? '' : 's'}`}
        </li>
        <li className="flex items-center gap-2">
          <KeyRound aria-hidden="true" className="size-4 shrink-0" />
          {share.protected ? 'Same password as before' : 'No password'}
        </li>
      </ul>
      <p className="mt-2 text-amber-800 dark:text-amber-200/80">You can change both once it is on.</p>
    </div>
  );
}

export interface ShareDialogProps {
  email: Email;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Sharing is a Pro feature (docs/spec.md §1); a free user may still switch an old link off. */
  canShare: boolean;
}

/**
 * The Share Link dialog (docs/spec.md §2, §4): a switch that shares (minting the public link) or,
 * once the owner confirms, makes the email private again (the old link then shows Email Not Found
 * for good: docs/decisions/0010-sharing-off-semantics.md), the read-only link with Copy link
 * (Copied! for 2 seconds), and the Embed and Custom Link tabs (Coming soon).
 */
export function ShareDialog({ email, open, onOpenChange, canShare }: ShareDialogProps) {
  const share = useShareEmail();
  const unshare = useUnshareEmail();
  // The server's URL for the slug it just minted (built from PUBLIC_URL); until then, this origin.
  const [minted, setMinted] = useState<{ slug: string; url: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const [confirmOff, setConfirmOff] = useState(false);
  const copiedTimer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(copiedTimer.current), []);

  const busy = share.isPending || unshare.isPending;
  // While a change is on its way the switch shows where it is going.
  const on = share.isPending ? true : unshare.isPending ? false : email.isPublic;
  const slug = email.isPublic ? email.publicSlug : null;
  // Rotating mints a new slug too: the server's URL is kept for whichever slug it answered last.
  const rotated = share.data?.email.publicSlug === slug && share.data ? share.data.publicUrl : null;
  const url = slug
    ? minted?.slug === slug
      ? minted.url
      : (rotated ?? `${window.location.origin}/s/${slug}`)
    : null;
  // A dead link's row stays (docs/decisions/0083-share-per-thread.md): what it was set to is what
  // the new link keeps, and the dialog says so before the owner turns sharing on.
  const expired = !email.isPublic && email.share?.expiresAt ? email.share : null;

  const onError = (err: unknown) => toast.error('Failed to update sharing', errorMessage(err));
  const toggle = (next: boolean) => {
    if (busy) return;
    if (next) {
      share.mutate(
        { id: email.id },
        {
          onSuccess: (res) => {
            if (res.email.publicSlug) setMinted({ slug: res.email.publicSlug, url: res.publicUrl });
            toast.success('Email shared successfully!', 'Public link has been generated');
          },
          onError,
        },
      );
    } else {
      // Off ends the link for good (the server deletes it, share.service.ts): asked first, as
      // Rotate Link is.
      setConfirmOff(true);
    }
  };
  const turnOff = () =>
    unshare.mutate(email.id, {
      onSuccess: () => {
        setConfirmOff(false);
        setCopied(false);
        toast.success('Sharing disabled');
      },
      onError,
    });

  const copy = async () => {
    if (!url) return;
    try {
      await copyText(url);
      setCopied(true);
      window.clearTimeout(copiedTimer.current);
      copiedTimer.current = window.setTimeout(() => setCopied(false), COPIED_INDICATOR_MS);
      toast.success('Link copied to clipboard');
    } catch (err) {
      toast.error('Failed to copy link', errorMessage(err));
    }
  };

  const locked = !canShare && !email.isPublic;

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title="Share Link"
      description="Give a client a link to this email. It opens in any browser, no account needed."
      size="md"
    >
      <Tabs defaultValue="link">
        <TabsList className="w-full [&>button]:flex-1">
          <TabsTrigger value="link">Public Link</TabsTrigger>
          <TabsTrigger value="embed">Embed</TabsTrigger>
          <TabsTrigger value="custom">Custom Link</TabsTrigger>
        </TabsList>

        <TabsContent value="link" className="space-y-4">
          <div className="flex items-start justify-between gap-4 rounded-lg border border-slate-200 p-4 dark:border-slate-800">
            <div className="min-w-0">
              <label htmlFor="share-switch" className="text-sm font-medium text-slate-900 dark:text-white">
                Share publicly
              </label>
              <p id="share-switch-hint" className="mt-0.5 text-sm text-slate-600 dark:text-slate-400">
                {!on
                  ? 'Only you can see this email.'
                  : email.share?.protected
                    ? 'Anyone with the link and its password can view this email.'
                    : 'Anyone with the link can view this email.'}
              </p>
            </div>
            <Switch
              id="share-switch"
              checked={on}
              disabled={locked}
              busy={busy}
              aria-describedby="share-switch-hint"
              onCheckedChange={toggle}
            />
          </div>

          {expired?.expiresAt ? <ExpiredLink share={expired} expiredAt={expired.expiresAt} /> : null}

          {locked ? (
            <div className="flex flex-col gap-3 rounded-lg bg-brand-50 p-4 text-sm sm:flex-row sm:items-center sm:justify-between dark:bg-brand-950/50">
              <p className="flex items-center gap-2 text-brand-900 dark:text-brand-100">
                <Lock aria-hidden="true" className="size-4 shrink-0" />
                Public share links are a Pro feature.
              </p>
              <Link to="/plan" className={buttonClasses({ size: 'sm' })}>
                Upgrade to Pro
              </Link>
            </div>
          ) : null}

          {url ? (
            <div className="space-y-2">
              <label
                htmlFor="share-url"
                className="block text-sm font-medium text-slate-800 dark:text-slate-200"
              >
                Public link
              </label>
              <div className="flex flex-col gap-2 sm:flex-row">
                <Input
                  id="share-url"
                  readOnly
                  value={url}
                  className="font-mono text-xs sm:text-sm"
                  onFocus={(e) => e.currentTarget.select()}
                />
                <Button
                  variant={copied ? 'secondary' : 'primary'}
                  onClick={() => void copy()}
                  className="sm:w-32"
                >
                  {copied ? <Check aria-hidden="true" /> : <Copy aria-hidden="true" />}
                  {copied ? 'Copied!' : 'Copy link'}
                </Button>
              </div>
              <div className="flex flex-wrap items-center justify-between gap-2 text-sm">
                <p className="text-slate-500 dark:text-slate-400">
                  Turning sharing off disables this link for good.
                </p>
                <a
                  href={url}
                  target="_blank"
                  rel="noopener noreferrer"
                  className="inline-flex items-center gap-1 font-medium text-brand-600 hover:underline dark:text-brand-400"
                >
                  Open Link
                  <ExternalLink aria-hidden="true" className="size-3.5" />
                </a>
              </div>
            </div>
          ) : null}

          {url ? <ShareSettings email={email} /> : null}

          <ConfirmDialog
            open={confirmOff}
            onOpenChange={setConfirmOff}
            title="Turn Sharing Off?"
            description="The link stops working for good, for everyone you sent it to. Sharing again makes a new link, different from this one."
            confirmLabel="Turn Sharing Off"
            busy={unshare.isPending}
            destructive
            onConfirm={turnOff}
          />
        </TabsContent>

        <TabsContent value="embed">
          <ComingSoon what="Embed this email in your own site or portfolio." />
        </TabsContent>
        <TabsContent value="custom">
          <ComingSoon what="Pick a memorable address for this email's link." />
        </TabsContent>
      </Tabs>
    </Dialog>
  );
}
