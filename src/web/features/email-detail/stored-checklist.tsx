import type { Email } from '../../../shared/contract/email.ts';
import { Checklist, ChecklistSummaryBadge } from '../../components/checklist/checklist.tsx';
import { checklistSummary } from '../../lib/checklist-summary.ts';

/** The pre-send checklist as it was computed when the email was sent. */
export function StoredChecklist({ email }: { email: Email }) {
  return (
    <section aria-labelledby="checklist-heading" className="space-y-2">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="checklist-heading" className="text-sm font-semibold text-slate-900 dark:text-white">
          Pre-Send Checklist
        </h2>
        {email.checks ? (
          <ChecklistSummaryBadge checks={email.checks} summary={checklistSummary(email.checks)} />
        ) : null}
      </div>
      {email.checks ? (
        <Checklist checks={email.checks} />
      ) : (
        <p className="rounded-xl border border-dashed border-slate-300 px-4 py-3 text-sm text-slate-600 dark:border-slate-700 dark:text-slate-400">
          No checklist was kept for this email: it was sent before checks were run on every send.
        </p>
      )}
    </section>
  );
}
