import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { MAX_RECIPIENTS, PRO_PRICE_MONTHLY } from '../../../shared/plans.ts';
import { Button, buttonClasses } from '../../components/ui/button.tsx';
import { cx } from '../../components/ui/cx.ts';
import { CheckIcon } from '../../components/ui/icons.tsx';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { usePublicConfig } from '../../lib/public-config.ts';

export interface PricingCardsProps {
  /** The signed-in user's plan; leave undefined for anonymous visitors (buttons read Get Started). */
  plan?: 'free' | 'pro';
  /** Free users: starts the Pro checkout. */
  onUpgrade?: () => void;
  /** Pro users: opens the billing portal. */
  onManageBilling?: () => void;
  /** Pro users: a note in place of Manage Billing (a plan an administrator granted has no billing). */
  proNote?: ReactNode;
  /** Which action is running, to show a spinner on its button. */
  busy?: 'upgrade' | 'billing' | null;
  /** Heading level of the plan names, to fit the page outline. */
  headingLevel?: 'h2' | 'h3';
  className?: string;
}

function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** "10 emails per month" from the server's value; a placeholder while it loads, never a guess. */
export function FreeAllowance({ suffix = 'per month' }: { suffix?: string }) {
  const config = usePublicConfig();
  if (config.data) {
    const n = config.data.freeMonthlyLimit;
    return (
      <span data-testid="free-allowance">
        {formatCount(n)} {n === 1 ? 'email' : 'emails'} {suffix}
      </span>
    );
  }
  if (config.isError) return <span>A monthly send allowance</span>;
  return (
    <span className="inline-flex items-center gap-1.5" aria-busy="true">
      <Skeleton className="h-4 w-24 align-middle" />
      <span className="sr-only">Loading the monthly allowance</span>
    </span>
  );
}

function ProFairUse() {
  const config = usePublicConfig();
  if (!config.data) return <>Unlimited sends, subject to fair use</>;
  return <>Unlimited sends (fair use: {formatCount(config.data.proMonthlyLimit)}/month)</>;
}

interface Feature {
  text: ReactNode;
  included: boolean;
}

function FeatureList({ features }: { features: Feature[] }) {
  return (
    <ul className="space-y-3 text-sm">
      {features.map((f, i) => (
        <li
          key={i}
          className={cx('flex items-start gap-3', !f.included && 'text-slate-500 dark:text-slate-400')}
        >
          {f.included ? (
            <CheckIcon className="mt-0.5 size-4 shrink-0 text-brand-600 dark:text-brand-400" />
          ) : (
            <span
              aria-hidden="true"
              className="mt-2.5 mr-0.5 ml-0.5 h-px w-3 shrink-0 bg-slate-400 dark:bg-slate-600"
            />
          )}
          <span>
            {f.included ? null : <span className="sr-only">Not included: </span>}
            {f.text}
          </span>
        </li>
      ))}
    </ul>
  );
}

interface PlanCardProps {
  id: string;
  name: string;
  price: number;
  blurb: string;
  features: Feature[];
  highlighted?: boolean;
  current?: boolean;
  headingLevel: 'h2' | 'h3';
  action: ReactNode;
}

function PlanCard({
  id,
  name,
  price,
  blurb,
  features,
  highlighted,
  current,
  headingLevel: H,
  action,
}: PlanCardProps) {
  const headingId = `plan-${id}-name`;
  return (
    <div
      role="group"
      aria-labelledby={headingId}
      data-plan={id}
      className={cx(
        'relative flex flex-col rounded-2xl border bg-white p-6 shadow-sm sm:p-8 dark:bg-slate-900',
        highlighted
          ? 'border-brand-500 ring-1 ring-brand-500 dark:border-brand-400 dark:ring-brand-400'
          : 'border-slate-200 dark:border-slate-800',
      )}
    >
      <div className="flex items-center justify-between gap-3">
        <H id={headingId} className="text-lg font-semibold text-slate-900 dark:text-white">
          {name}
        </H>
        {/* Plain pills rather than <Badge>: one module less on the landing page's first load. */}
        {current ? (
          <span className="rounded-full bg-green-50 px-2 py-0.5 text-xs font-medium text-green-800 ring-1 ring-green-600/25 ring-inset dark:bg-green-950/60 dark:text-green-300 dark:ring-green-400/25">
            Your plan
          </span>
        ) : highlighted ? (
          <span className="rounded-full bg-brand-50 px-2 py-0.5 text-xs font-medium text-brand-700 ring-1 ring-brand-600/25 ring-inset dark:bg-brand-950/60 dark:text-brand-300 dark:ring-brand-400/25">
            Most popular
          </span>
        ) : null}
      </div>
      <p className="mt-2 text-sm text-slate-600 md:min-h-10 lg:min-h-0 dark:text-slate-400">{blurb}</p>
      <p className="mt-6 flex items-baseline gap-1" data-testid={`price-${id}`}>
        <span className="text-4xl font-semibold tracking-tight text-slate-900 dark:text-white">${price}</span>
        <span className="text-sm font-medium text-slate-600 dark:text-slate-400">/month</span>
      </p>
      <div className="mt-6">{action}</div>
      <div className="mt-8 border-t border-slate-200 pt-6 dark:border-slate-800">
        <FeatureList features={features} />
      </div>
    </div>
  );
}

/** A line in place of a card's button. */
function CardNote({ children, testId }: { children: ReactNode; testId?: string }) {
  return (
    <p
      data-testid={testId}
      className="flex min-h-12 items-center justify-center rounded-lg bg-slate-50 px-4 py-2 text-center text-sm text-slate-600 dark:bg-slate-800/60 dark:text-slate-400"
    >
      {children}
    </p>
  );
}

/**
 * The Free and Pro cards. Anonymous visitors get "Get Started" (→ /signup); a signed-in free user
 * sees "Current Plan" (disabled) on Free and "Upgrade to Pro" on Pro; a Pro user gets "Manage Billing",
 * or the note the page gives instead.
 */
export function PricingCards({
  plan,
  onUpgrade,
  onManageBilling,
  proNote,
  busy = null,
  headingLevel = 'h3',
  className,
}: PricingCardsProps) {
  const recipients = `Send to up to ${MAX_RECIPIENTS} recipients`;

  const freeAction =
    plan === undefined ? (
      <Link to="/signup" className={buttonClasses({ variant: 'outline', size: 'lg', className: 'w-full' })}>
        Get Started
      </Link>
    ) : plan === 'free' ? (
      <Button variant="outline" size="lg" className="w-full" disabled>
        Current Plan
      </Button>
    ) : (
      <CardNote>Everything in Free is included in Pro</CardNote>
    );

  const proAction =
    plan === undefined ? (
      <Link to="/signup" className={buttonClasses({ variant: 'primary', size: 'lg', className: 'w-full' })}>
        Get Started
      </Link>
    ) : plan === 'free' ? (
      <Button size="lg" className="w-full" onClick={onUpgrade} busy={busy === 'upgrade'}>
        Upgrade to Pro
      </Button>
    ) : proNote ? (
      <CardNote testId="pro-note">{proNote}</CardNote>
    ) : (
      <Button
        variant="outline"
        size="lg"
        className="w-full"
        onClick={onManageBilling}
        busy={busy === 'billing'}
      >
        Manage Billing
      </Button>
    );

  return (
    <div className={cx('mx-auto grid max-w-4xl gap-6 md:grid-cols-2', className)}>
      <PlanCard
        id="free"
        name="Free"
        price={0}
        blurb="For trying Proofmail and occasional tests."
        headingLevel={headingLevel}
        current={plan === 'free'}
        action={freeAction}
        features={[
          { text: <FreeAllowance />, included: true },
          { text: recipients, included: true },
          { text: 'CSS inlining', included: true },
          { text: 'Searchable history', included: false },
          { text: 'Public share links', included: false },
        ]}
      />
      <PlanCard
        id="pro"
        name="Pro"
        price={PRO_PRICE_MONTHLY}
        blurb="For freelancers and teams who test every day."
        headingLevel={headingLevel}
        highlighted
        current={plan === 'pro'}
        action={proAction}
        features={[
          { text: <ProFairUse />, included: true },
          { text: recipients, included: true },
          { text: 'CSS inlining', included: true },
          { text: 'Searchable history', included: true },
          { text: 'Public share links', included: true },
          { text: 'Priority queue', included: true },
          { text: 'Higher rate limits', included: true },
        ]}
      />
    </div>
  );
}
