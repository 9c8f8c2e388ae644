import { BILLING_MESSAGES } from '../../../shared/contract/billing.ts';
import { Button } from '../ui/button.tsx';
import { Dialog } from '../ui/dialog.tsx';

/**
 * What an upgrade or billing action shows on a server without Stripe (docs/decisions/0017-billing-off.md):
 * why nothing can be bought here, and how an administrator changes a plan instead.
 */
export function BillingDisabledDialog({
  open,
  onOpenChange,
  email,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  email?: string;
}) {
  const command = `npm run admin -- set-plan ${email ?? 'EMAIL'} pro`;
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={BILLING_MESSAGES.disabled}
      description="Online payments are turned off for this installation of Proofmail, so plans cannot be bought or managed here."
      footer={<Button onClick={() => onOpenChange(false)}>Got it</Button>}
    >
      <div className="space-y-3 text-sm text-slate-700 dark:text-slate-300" data-testid="billing-disabled">
        <p>An administrator of this server can give your account the Pro plan from the command line:</p>
        <pre className="overflow-x-auto rounded-lg bg-slate-100 px-3 py-2 font-mono text-xs text-slate-900 dark:bg-slate-800 dark:text-slate-100">
          <code>{command}</code>
        </pre>
        <p className="text-slate-600 dark:text-slate-400">
          Ask them to run it, then reload this page. To sell plans online, the server needs Stripe settings
          (STRIPE_SECRET_KEY and friends).
        </p>
      </div>
    </Dialog>
  );
}
