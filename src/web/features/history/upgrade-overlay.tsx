import { Lock, Sparkles } from 'lucide-react';
import { Link } from 'react-router';
import type { EmailSummary } from '../../../shared/contract/email.ts';
import { buttonClasses } from '../../components/ui/button.tsx';
import { EmailList } from './email-list.tsx';

const MINUTE = 60_000;

/** Made-up rows drawn (blurred) behind the prompt, so free users see what history looks like. */
function sampleEmails(now: Date): EmailSummary[] {
  const rows: Array<[string, string, number, boolean]> = [
    ['client@acme.example', 'Spring sale — final layout', 4, true],
    ['team@studio.example', 'Onboarding email v3', 52, false],
    ['anna@bakery.example', 'Newsletter: March recipes', 60 * 5, true],
    ['qa@agency.example', 'Password reset template', 60 * 26, false],
    ['hello@shop.example', 'Order confirmation (dark mode)', 60 * 24 * 3, false],
    ['client@acme.example', 'Spring sale — first draft', 60 * 24 * 6, false],
  ];
  return rows.map(([to, subject, minutesAgo, isPublic], i) => ({
    id: `sample-${i}`,
    threadId: `sample-${i}`,
    version: 1,
    versionCount: 1,
    matched: null,
    to,
    subject,
    createdAt: new Date(now.getTime() - minutesAgo * MINUTE).toISOString(),
    isPublic,
    publicSlug: null,
    delivery: { state: 'sent', attempts: 1, error: null, sentAt: null, uncertain: false },
  }));
}

/**
 * The free plan's history (docs/spec.md §2, §6): a blurred overlay reading Upgrade to View History with
 * an Upgrade to Pro button to /plan. The list API is never called for free users.
 */
export function UpgradeOverlay({ now, compact }: { now: Date; compact: boolean }) {
  return (
    <div className="relative min-h-[420px] overflow-hidden" data-testid="upgrade-overlay">
      <div aria-hidden="true" inert className="pointer-events-none blur-[5px] select-none">
        <EmailList emails={sampleEmails(now)} now={now} compact={compact} onDelete={() => undefined} />
      </div>
      <div className="absolute inset-0 flex items-center justify-center bg-white/40 p-4 dark:bg-slate-950/40">
        <div className="w-full max-w-sm rounded-xl border border-slate-200 bg-white p-6 text-center shadow-xl dark:border-slate-700 dark:bg-slate-900">
          <span className="mx-auto flex size-12 items-center justify-center rounded-full bg-brand-50 text-brand-600 dark:bg-brand-950/70 dark:text-brand-300">
            <Lock aria-hidden="true" className="size-6" />
          </span>
          <h2 className="mt-4 text-lg font-semibold text-slate-900 dark:text-white">
            Upgrade to View History
          </h2>
          <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
            Pro keeps every email you send: search it, preview it, copy its HTML and share a public link with
            your client.
          </p>
          <Link to="/plan" className={buttonClasses({ className: 'mt-5 w-full' })}>
            <Sparkles aria-hidden="true" />
            Upgrade to Pro
          </Link>
        </div>
      </div>
    </div>
  );
}
