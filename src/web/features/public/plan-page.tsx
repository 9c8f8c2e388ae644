import { ChevronDown } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { PRO_PRICE_MONTHLY } from '../../../shared/plans.ts';
import { PageContainer } from '../../components/layout/page-container.tsx';
import { focusRing } from '../../components/ui/cx.ts';
import { FreeAllowance, PricingCards, type PricingCardsProps } from './pricing-cards.tsx';

const inlineLink =
  'rounded-sm font-medium text-brand-600 underline underline-offset-4 hover:text-brand-700 dark:text-brand-400 dark:hover:text-brand-300 ' +
  focusRing;

interface Faq {
  question: string;
  answer: ReactNode;
}

const FAQ: Faq[] = [
  {
    question: 'Is there an annual plan?',
    answer: (
      <>
        Not yet. Pro is billed monthly at ${PRO_PRICE_MONTHLY} and you can cancel at any time, so you never
        pay for months you do not use. If your company needs a yearly invoice,{' '}
        <Link to="/contact" className={inlineLink}>
          contact us
        </Link>{' '}
        and we will sort it out.
      </>
    ),
  },
  {
    question: 'What happens when I cancel?',
    answer: (
      <>
        Nothing changes until the end of the billing period you have paid for. After that your account returns
        to the Free plan and its limits (<FreeAllowance />
        ). Your account and the emails you have sent stay in place; the history view and new share links need
        Pro again.
      </>
    ),
  },
  {
    question: 'Do I need an email service provider?',
    answer: (
      <>
        No. Proofmail delivers your test emails itself, so there is no Mailchimp, SendGrid or SMTP account to
        set up. It is built for testing: real sends to a handful of your own inboxes, not newsletters or bulk
        mail.
      </>
    ),
  },
  {
    question: 'Can I switch plans?',
    answer: (
      <>
        Yes. Upgrade from Free to Pro whenever you need more and the Pro features apply straight away. To go
        back to Free, cancel from Manage Billing; you keep Pro until the end of the period and are not charged
        again.
      </>
    ),
  },
];

export interface PlanPageViewProps extends Pick<
  PricingCardsProps,
  'plan' | 'proNote' | 'onUpgrade' | 'onManageBilling' | 'busy'
> {
  /** Shown between the cards and the FAQ (e.g. "billing is not enabled on this server"). */
  notice?: ReactNode;
  /** No plans are sold on this server: the FAQ does not send anyone to Manage Billing. */
  billingOff?: boolean;
}

/** How plans change where this server sells none (docs/decisions/0057-billing-off-says-so.md). */
const SWITCH_WITHOUT_BILLING: Faq = {
  question: 'Can I switch plans?',
  answer: (
    <>
      Not online on this server: billing is not enabled here, so nothing can be bought or cancelled. If you
      need a different plan, ask whoever runs this server.
    </>
  ),
};

/**
 * The /plan page body. Anonymous visitors see Get Started; the app passes a signed-in user's plan
 * and the billing handlers to get Current Plan / Upgrade to Pro / Manage Billing.
 */
export function PlanPageView({ notice, billingOff = false, ...cards }: PlanPageViewProps) {
  const faq = billingOff
    ? FAQ.map((item) => (item.question === SWITCH_WITHOUT_BILLING.question ? SWITCH_WITHOUT_BILLING : item))
    : FAQ;
  return (
    <PageContainer className="py-14 sm:py-20">
      <div className="mx-auto max-w-2xl text-center">
        <h1 className="text-4xl font-semibold tracking-tight text-slate-900 sm:text-5xl dark:text-white">
          Plans and Pricing
        </h1>
        <p className="mt-4 text-lg leading-8 text-slate-600 dark:text-slate-400">
          Send real test emails for free. Go Pro for unlimited sends, a searchable history and links you can
          share with clients.
        </p>
      </div>
      <PricingCards className="mt-12" headingLevel="h2" {...cards} />
      {notice ? <div className="mx-auto mt-6 max-w-4xl">{notice}</div> : null}
      <section aria-labelledby="faq-title" className="mx-auto mt-20 max-w-3xl">
        <h2
          id="faq-title"
          className="text-center text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl dark:text-white"
        >
          Frequently Asked Questions
        </h2>
        <div className="mt-8 divide-y divide-slate-200 rounded-2xl border border-slate-200 bg-white dark:divide-slate-800 dark:border-slate-800 dark:bg-slate-900">
          {faq.map((item) => (
            <details key={item.question} className="group px-5 sm:px-6">
              <summary
                className={`flex cursor-pointer list-none items-center justify-between gap-4 rounded-md py-5 text-left font-medium text-slate-900 dark:text-white [&::-webkit-details-marker]:hidden ${focusRing}`}
              >
                <span>{item.question}</span>
                <ChevronDown
                  aria-hidden="true"
                  className="size-5 shrink-0 text-slate-500 transition-transform group-open:rotate-180"
                />
              </summary>
              <p className="pb-5 text-sm leading-6 text-slate-600 dark:text-slate-400">{item.answer}</p>
            </details>
          ))}
        </div>
        <p className="mt-8 text-center text-sm text-slate-600 dark:text-slate-400">
          Something else?{' '}
          <Link to="/contact" className={inlineLink}>
            Get in touch
          </Link>
          .
        </p>
      </section>
    </PageContainer>
  );
}
