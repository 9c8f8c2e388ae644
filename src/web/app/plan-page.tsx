import { PublicLayout } from '../components/layout/public-layout.tsx';
import { useDocumentTitle } from '../components/layout/use-document-title.ts';
import { usePlanPageBilling } from '../features/billing/plan-page-billing.tsx';
import { PlanPageView } from '../features/public/plan-page.tsx';

/** /plan (docs/spec.md §2): the public page's cards and FAQ, with the billing feature's buttons. */
export function PlanPage() {
  useDocumentTitle('Plans and Pricing');
  const { dialog, ...billing } = usePlanPageBilling();
  return (
    <PublicLayout>
      <PlanPageView {...billing} />
      {dialog}
    </PublicLayout>
  );
}
