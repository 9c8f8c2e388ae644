import { MailWarning } from 'lucide-react';
import { Button } from '../../components/ui/button.tsx';
import { SEND_MESSAGES } from '../../../shared/contract/email.ts';
import { useResendVerification } from '../../lib/resend-verification.ts';

/** Unverified users cannot send (docs/spec.md §2, §5): say so and offer a new verification link. */
export function VerificationRequiredNotice() {
  const resend = useResendVerification();
  return (
    <div
      role="status"
      data-testid="verification-required"
      className="flex flex-wrap items-start justify-between gap-3 rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950 dark:border-amber-500/40 dark:bg-amber-950/40 dark:text-amber-100"
    >
      <div className="flex gap-3">
        <MailWarning className="mt-0.5 size-5 shrink-0" aria-hidden="true" />
        <div>
          <p className="font-semibold">Email verification required</p>
          <p>{SEND_MESSAGES.unverified} Check your inbox for the link, or request a new one.</p>
        </div>
      </div>
      <Button size="sm" variant="outline" busy={resend.isPending} onClick={() => resend.mutate()}>
        Resend Verification Email
      </Button>
    </div>
  );
}
