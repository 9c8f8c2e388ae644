import { useEffect, useState, type FormEvent } from 'react';
import { DEFAULT_TARGET_CLIENTS, TARGET_CLIENTS } from '../../../shared/contract/checks.ts';
import { Button } from '../../components/ui/button.tsx';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { errorMessage } from '../../lib/api.ts';
import { useSaveTargetClients, useTargetClients } from './api.ts';
import { Section } from './section.tsx';

/** The email clients the pre-send checklist scores compatibility for. */
export function TargetClientsCard() {
  const current = useTargetClients();
  const save = useSaveTargetClients();
  const [chosen, setChosen] = useState<Set<string> | null>(null);
  useEffect(() => {
    if (current.data) setChosen(new Set(current.data.targetClients));
  }, [current.data]);

  const saved = new Set<string>(current.data?.targetClients ?? []);
  const changed = chosen !== null && (chosen.size !== saved.size || [...chosen].some((id) => !saved.has(id)));
  const toggle = (id: string, on: boolean) =>
    setChosen((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!chosen) return;
    save.mutate([...chosen], {
      onSuccess: () => toast.success('Target Clients Saved', 'The checklist now scores these clients.'),
      onError: (err) => toast.error('Failed to save target clients', errorMessage(err)),
    });
  };

  return (
    <Section
      id="target-clients"
      title="Target Clients"
      description="The email clients the pre-send checklist checks your HTML and CSS against, each in its latest tested version."
    >
      {chosen === null ? (
        current.isError ? (
          <p role="alert" className="text-sm text-red-700 dark:text-red-300">
            {errorMessage(current.error)}
          </p>
        ) : (
          <Skeleton className="h-40 w-full" />
        )
      ) : (
        <form onSubmit={onSubmit} className="space-y-4">
          <fieldset>
            <legend className="sr-only">Target clients</legend>
            <div className="grid gap-x-6 gap-y-2 sm:grid-flow-col sm:grid-cols-2 sm:grid-rows-[repeat(10,auto)]">
              {TARGET_CLIENTS.map((client) => (
                <label
                  key={client.id}
                  className="flex items-center gap-2.5 text-sm text-slate-800 dark:text-slate-200"
                >
                  <input
                    type="checkbox"
                    name="targetClients"
                    value={client.id}
                    checked={chosen.has(client.id)}
                    onChange={(e) => toggle(client.id, e.target.checked)}
                    className="size-4 rounded border-slate-300 accent-brand-600 dark:border-slate-600"
                  />
                  {client.label}
                </label>
              ))}
            </div>
          </fieldset>
          {chosen.size === 0 ? (
            <p role="alert" className="text-sm text-red-700 dark:text-red-300">
              Choose at least one client.
            </p>
          ) : null}
          <div className="flex flex-wrap gap-3">
            <Button type="submit" disabled={!changed || chosen.size === 0} busy={save.isPending}>
              Save Target Clients
            </Button>
            <Button
              type="button"
              variant="outline"
              onClick={() => setChosen(new Set(DEFAULT_TARGET_CLIENTS))}
            >
              Use Defaults
            </Button>
          </div>
        </form>
      )}
    </Section>
  );
}
