import { Sparkles } from 'lucide-react';
import type { ReactNode } from 'react';
import { Button, type ButtonProps } from '../ui/button.tsx';
import { useBillingActions, type BillingContext } from '../../lib/billing-actions.tsx';

/**
 * An "Upgrade to Pro" button: it starts Stripe Checkout, as every upgrade button in the app does.
 * On a server without billing it explains that instead.
 */
export function UpgradeButton({
  children = 'Upgrade to Pro',
  context = 'page',
  icon = true,
  ...props
}: Omit<ButtonProps, 'onClick' | 'busy' | 'children'> & {
  children?: ReactNode;
  context?: BillingContext;
  icon?: boolean;
}) {
  const billing = useBillingActions(context);
  return (
    <>
      <Button {...props} busy={billing.busy === 'upgrade'} onClick={billing.upgrade}>
        {icon ? <Sparkles aria-hidden="true" /> : null}
        {children}
      </Button>
      {billing.dialog}
    </>
  );
}
