import { ChevronDown, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import type { Email } from '../../../shared/contract/email.ts';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmDialog } from '../../components/ui/dialog.tsx';
import { DropdownMenu, DropdownMenuItem } from '../../components/ui/dropdown-menu.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { errorMessage } from '../../lib/api.ts';
import { useDeleteAllVersions, useDeleteVersion } from './api.ts';

type Asking = 'one' | 'all' | null;

/**
 * Deleting from the detail page (docs/spec.md §5: with confirmation). An email of one version
 * asks the spec's question; with several versions the choice is explicit: this version, or all of
 * them (the count named). Deleting the last version left deletes the thread.
 */
export function DeleteEmail({ email }: { email: Email }) {
  const navigate = useNavigate();
  const [asking, setAsking] = useState<Asking>(null);
  const deleteOne = useDeleteVersion();
  const deleteAll = useDeleteAllVersions();
  const count = email.versions.length;
  const busy = deleteOne.isPending || deleteAll.isPending;

  const done = (to: string) => {
    toast.success('Email deleted');
    setAsking(null);
    void navigate(to, { replace: true });
  };
  const failed = (err: unknown) => {
    toast.error('Failed to delete email', errorMessage(err));
    setAsking(null);
  };
  const confirm = () => {
    if (asking === 'all') {
      deleteAll.mutate(email, { onSuccess: () => done('/app/history'), onError: failed });
      return;
    }
    // What is left: the newest other version, or the history when this was the last.
    const next = email.versions.find((v) => v.id !== email.id);
    deleteOne.mutate(email.id, {
      onSuccess: () => done(next ? `/app/email/${next.id}` : '/app/history'),
      onError: failed,
    });
  };

  return (
    <>
      {count > 1 ? (
        <DropdownMenu
          triggerVariant="outline"
          trigger={
            <>
              <Trash2 aria-hidden="true" />
              Delete
              <ChevronDown aria-hidden="true" />
            </>
          }
        >
          <DropdownMenuItem icon={<Trash2 />} destructive onSelect={() => setAsking('one')}>
            Delete This Version
          </DropdownMenuItem>
          <DropdownMenuItem icon={<Trash2 />} destructive onSelect={() => setAsking('all')}>
            Delete All Versions
          </DropdownMenuItem>
        </DropdownMenu>
      ) : (
        <Button variant="outline" onClick={() => setAsking('one')}>
          <Trash2 aria-hidden="true" />
          Delete
        </Button>
      )}
      <ConfirmDialog
        open={asking !== null}
        onOpenChange={(open) => {
          if (!open) setAsking(null);
        }}
        title={
          count === 1 ? 'Delete Email' : asking === 'all' ? 'Delete All Versions' : 'Delete This Version'
        }
        description={
          count === 1
            ? 'Are you sure you want to delete this email?'
            : asking === 'all'
              ? `Are you sure you want to delete all ${count} versions of this email?`
              : `Are you sure you want to delete version ${email.version} of this email? The other ${
                  count - 1 === 1 ? 'version stays' : `${count - 1} versions stay`
                }.`
        }
        confirmLabel={asking === 'all' ? `Delete ${count} Versions` : 'Delete'}
        destructive
        busy={busy}
        onConfirm={confirm}
      />
    </>
  );
}
