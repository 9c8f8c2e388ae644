import { useState } from 'react';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmDialog } from '../../components/ui/dialog.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { errorMessage } from '../../lib/api.ts';
import { useSharedLinks, useWithdrawSharedLinks } from './api.ts';
import { Section } from './section.tsx';

/**
 * Public links the user has out, on any plan: links shared on Pro keep working on Free until the
 * owner stops them, so the owner always sees how many there are and can withdraw them all
 * (docs/decisions/0036-public-links-after-pro.md). Shown only while there is at least one.
 */
export function SharedLinksCard({ plan }: { plan: 'free' | 'pro' }) {
  const links = useSharedLinks();
  const withdraw = useWithdrawSharedLinks();
  const [confirming, setConfirming] = useState(false);
  const count = links.data?.count ?? 0;
  if (count === 0) return null;
  const emails = count === 1 ? '1 email is' : `${count} emails are`;
  return (
    <Section
      id="shared-links"
      title="Public Links"
      description={
        plan === 'pro'
          ? `${emails} shared with a public link. Each link works until you stop sharing it.`
          : `${emails} still shared with a public link from your Pro plan. The links keep working until you stop sharing them; sharing another email needs Pro.`
      }
    >
      <div className="flex justify-end">
        <Button variant="outline" onClick={() => setConfirming(true)}>
          Stop Sharing All
        </Button>
      </div>
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title="Stop Sharing Every Email?"
        description={`Every public link stops working at once (${count === 1 ? '1 link' : `${count} links`}). Sharing an email again makes a new link.`}
        confirmLabel="Stop Sharing All"
        destructive
        busy={withdraw.isPending}
        onConfirm={() =>
          withdraw.mutate(undefined, {
            onSuccess: (res) => {
              setConfirming(false);
              toast.success(
                'Sharing stopped',
                res.withdrawn === 1 ? '1 link no longer works.' : `${res.withdrawn} links no longer work.`,
              );
            },
            onError: (err) => toast.error('Failed to update sharing', errorMessage(err)),
          })
        }
      />
    </Section>
  );
}
