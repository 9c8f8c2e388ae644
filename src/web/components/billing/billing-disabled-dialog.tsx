import { Button } from '../ui/button.tsx';
import { Dialog } from '../ui/dialog.tsx';

/**
 * What an upgrade or billing action shows on a server without Stripe: plainly that billing is not
 * enabled here. How an operator grants a plan is in the README and the server log, not in front of
 * end users (docs/decisions/0057-billing-off-says-so.md).
 */
export function BillingDisabledDialog({
  open,
  onOpenChange,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      size="sm"
      title="Billing Is Not Enabled on This Server"
      description="Plans cannot be bought, changed or cancelled online here, and nothing has been charged."
      footer={<Button onClick={() => onOpenChange(false)}>Got It</Button>}
    >
      <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="billing-disabled">
        If you need a different plan, ask whoever runs this server.
      </p>
    </Dialog>
  );
}
