import { MailWarning } from 'lucide-react';
import { Button } from '../../components/ui/button.tsx';
import { EmailAddress } from '../../components/ui/email-address.tsx';
import { useResendVerification } from '../../lib/resend-verification.ts';

/** The account page's warning for an unverified address, with a way to get a new link. */
export function UnverifiedWarning({ email }: { email: string }) {
  const resend = useResendVerification();
  return (
    <div
      role="status"
      data-testid="unverified-warning"
      className="flex flex-col gap-3 rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950 sm:flex-row sm:items-center sm:justify-between dark:border-amber-500/40 dark:bg-amber-950/40 dark:text-amber-100"
    >
      <div className="flex gap-3">
        <MailWarning aria-hidden="true" className="mt-0.5 size-5 shrink-0" />
        <div>
          <p className="font-semibold">Please verify your email address</p>
          <p>
            Check your inbox at <EmailAddress address={email} className="font-medium" /> for a verification
            link. You need to verify before you can send emails.
          </p>
        </div>
      </div>
      <Button
        size="sm"
        variant="outline"
        className="self-start sm:self-center"
        busy={resend.isPending}
        onClick={() => resend.mutate()}
      >
        Resend Verification Email
      </Button>
    </div>
  );
}
