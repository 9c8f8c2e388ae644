import { useRef } from 'react';
import { Link } from 'react-router';
import { PageContainer } from '../../components/layout/page-container.tsx';
import { PublicLayout } from '../../components/layout/public-layout.tsx';
import { useDocumentTitle } from '../../components/layout/use-document-title.ts';
import { Button, buttonClasses } from '../../components/ui/button.tsx';
import { HistoryIcon, LinkIcon, SendIcon } from '../../components/ui/icons.tsx';
import { FreeAllowance, PricingCards } from './pricing-cards.tsx';

const FEATURES = [
  {
    icon: SendIcon,
    title: 'Send HTML Email',
    text: 'Paste your HTML, inline the CSS with one switch, and deliver a real test to up to five inboxes in seconds.',
  },
  {
    icon: HistoryIcon,
    title: 'Save History',
    text: 'Every test is kept with its recipients and the exact HTML that went out. Search by subject, recipient or markup.',
  },
  {
    icon: LinkIcon,
    title: 'Share Links',
    text: 'Turn any email into a public link your client can open in any browser, with no account and no attachments.',
  },
] as const;

const STEPS = [
  {
    title: 'Paste Your HTML',
    text: 'Drop in the markup from your builder or editor. Inline the CSS if your styles live in a <style> block.',
  },
  {
    title: 'Send a Real Test',
    text: 'Proofmail delivers it to up to five addresses, so you see what Gmail, Outlook and Apple Mail really do.',
  },
  {
    title: 'Share the Result',
    text: 'Send your client one link instead of screenshots. Turn sharing off again whenever you like.',
  },
] as const;

function prefersReducedMotion(): boolean {
  return window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}

export function LandingPage() {
  useDocumentTitle(null);
  const pricingHeading = useRef<HTMLHeadingElement>(null);

  const viewPlans = () => {
    const heading = pricingHeading.current;
    if (!heading) return;
    document
      .getElementById('pricing')
      ?.scrollIntoView({ behavior: prefersReducedMotion() ? 'auto' : 'smooth', block: 'start' });
    // Keyboard and screen-reader users continue from the pricing section.
    heading.focus({ preventScroll: true });
  };

  return (
    <PublicLayout>
      {/* Hero */}
      <section className="relative overflow-hidden">
        <div
          aria-hidden="true"
          className="pointer-events-none absolute inset-x-0 top-0 -z-10 h-[36rem] bg-gradient-to-b from-brand-50 via-white to-white dark:from-brand-950/50 dark:via-slate-950 dark:to-slate-950"
        />
        <PageContainer className="grid items-center gap-12 pt-14 pb-16 sm:pt-20 lg:grid-cols-[1.05fr_1fr] lg:gap-10 lg:pt-24 lg:pb-24">
          <div className="max-w-xl">
            <p className="inline-flex items-center gap-2 rounded-full border border-brand-200 bg-white px-3 py-1 text-xs font-medium text-brand-700 shadow-xs dark:border-brand-800 dark:bg-slate-900 dark:text-brand-300">
              <span aria-hidden="true" className="size-1.5 rounded-full bg-brand-500" />
              For people who build emails for clients
            </p>
            <h1 className="mt-5 text-4xl leading-[1.1] font-semibold tracking-tight text-balance text-slate-900 sm:text-5xl dark:text-white">
              Test Your HTML Emails in Real Inboxes
            </h1>
            <p className="mt-5 text-lg leading-8 text-pretty text-slate-600 dark:text-slate-300">
              Paste your HTML, inline the CSS, and send a real test to up to five inboxes. Keep every version
              and share a link your client can open anywhere, without an email service provider.
            </p>
            <div className="mt-8 flex flex-col gap-3 sm:flex-row">
              <Link to="/signup" className={buttonClasses({ size: 'lg' })}>
                Start for Free
              </Link>
              <Button variant="outline" size="lg" onClick={viewPlans} aria-controls="pricing">
                View Plans
              </Button>
            </div>
            <p className="mt-4 flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-slate-500 dark:text-slate-400">
              <span>No credit card required.</span>
              <span>
                Free plan: <FreeAllowance />.
              </span>
            </p>
          </div>
          <HeroIllustration />
        </PageContainer>
      </section>

      {/* Features */}
      <section
        id="features"
        aria-labelledby="features-title"
        className="scroll-mt-16 border-t border-slate-200 py-16 sm:py-24 dark:border-slate-800"
      >
        <PageContainer>
          <div className="mx-auto max-w-2xl text-center">
            <p className="text-sm font-semibold text-brand-600 dark:text-brand-400">
              Everything in one place
            </p>
            <h2
              id="features-title"
              className="mt-2 text-3xl font-semibold tracking-tight text-slate-900 sm:text-4xl dark:text-white"
            >
              From Markup to Client Sign-Off
            </h2>
            <p className="mt-4 text-lg leading-8 text-slate-600 dark:text-slate-400">
              Stop forwarding screenshots. Proofmail sends the real thing and keeps a record of it.
            </p>
          </div>
          <ul className="mt-12 grid gap-6 md:grid-cols-3">
            {FEATURES.map(({ icon: Icon, title, text }) => (
              <li
                key={title}
                className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm transition-shadow hover:shadow-md dark:border-slate-800 dark:bg-slate-900"
              >
                <span className="flex size-11 items-center justify-center rounded-xl bg-brand-50 text-brand-600 dark:bg-brand-950 dark:text-brand-300">
                  <Icon aria-hidden="true" className="size-5" />
                </span>
                <h3 className="mt-5 text-lg font-semibold text-slate-900 dark:text-white">{title}</h3>
                <p className="mt-2 text-sm leading-6 text-slate-600 dark:text-slate-400">{text}</p>
              </li>
            ))}
          </ul>
        </PageContainer>
      </section>

      {/* How it works */}
      <section aria-labelledby="steps-title" className="bg-slate-50 py-16 sm:py-24 dark:bg-slate-900/40">
        <PageContainer>
          <h2
            id="steps-title"
            className="text-center text-3xl font-semibold tracking-tight text-slate-900 sm:text-4xl dark:text-white"
          >
            How It Works
          </h2>
          <ol className="mt-12 grid gap-8 md:grid-cols-3">
            {STEPS.map((step, i) => (
              <li key={step.title} className="flex gap-4">
                <span
                  aria-hidden="true"
                  className="flex size-9 shrink-0 items-center justify-center rounded-full bg-brand-600 text-sm font-semibold text-white"
                >
                  {i + 1}
                </span>
                <div>
                  <h3 className="font-semibold text-slate-900 dark:text-white">{step.title}</h3>
                  <p className="mt-1 text-sm leading-6 text-slate-600 dark:text-slate-400">{step.text}</p>
                </div>
              </li>
            ))}
          </ol>
        </PageContainer>
      </section>

      {/* Pricing */}
      <section id="pricing" aria-labelledby="pricing-title" className="scroll-mt-16 py-16 sm:py-24">
        <PageContainer>
          <div className="mx-auto max-w-2xl text-center">
            <p className="text-sm font-semibold text-brand-600 dark:text-brand-400">Pricing</p>
            <h2
              id="pricing-title"
              ref={pricingHeading}
              tabIndex={-1}
              className="mt-2 rounded-md text-3xl font-semibold tracking-tight text-slate-900 outline-none sm:text-4xl dark:text-white"
            >
              Start Free, Upgrade When You Need More
            </h2>
            <p className="mt-4 text-lg leading-8 text-slate-600 dark:text-slate-400">
              Simple monthly pricing. Cancel any time and keep the Free plan.
            </p>
          </div>
          <PricingCards className="mt-12" />
          <p className="mt-8 text-center text-sm text-slate-600 dark:text-slate-400">
            Questions about billing?{' '}
            <Link
              to="/plan"
              className="rounded-sm font-medium text-brand-600 underline-offset-4 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:text-brand-400"
            >
              Compare plans and read the FAQ
            </Link>
          </p>
        </PageContainer>
      </section>

      {/* Closing call to action */}
      <section aria-labelledby="cta-title" className="pb-16 sm:pb-24">
        <PageContainer>
          <div className="relative overflow-hidden rounded-3xl bg-brand-600 px-6 py-12 text-center shadow-lg sm:px-12 dark:bg-brand-700">
            <h2 id="cta-title" className="text-2xl font-semibold tracking-tight text-white sm:text-3xl">
              Your Next Test Email Is One Paste Away
            </h2>
            <p className="mx-auto mt-3 max-w-xl text-brand-100">
              Create an account in under a minute. Verify your email, paste your HTML and press send.
            </p>
            <Link
              to="/signup"
              className={buttonClasses({ variant: 'inverse', size: 'lg', className: 'mt-8' })}
            >
              Create Your Free Account
            </Link>
          </div>
        </PageContainer>
      </section>
    </PublicLayout>
  );
}

/** A drawn (not screenshotted) glimpse of the product: the compose form next to its preview. */
function HeroIllustration() {
  return (
    <div aria-hidden="true" className="relative mx-auto w-full max-w-lg lg:max-w-none">
      <div className="absolute -inset-4 -z-10 rounded-[2rem] bg-gradient-to-tr from-brand-200/60 to-sky-100/60 blur-2xl dark:from-brand-900/40 dark:to-sky-900/20" />
      <div className="overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-xl dark:border-slate-700 dark:bg-slate-900">
        <div className="flex items-center gap-1.5 border-b border-slate-200 bg-slate-50 px-4 py-3 dark:border-slate-700 dark:bg-slate-800/60">
          <span className="size-2.5 rounded-full bg-red-400" />
          <span className="size-2.5 rounded-full bg-yellow-400" />
          <span className="size-2.5 rounded-full bg-green-400" />
          <span className="ml-3 text-xs font-medium text-slate-500 dark:text-slate-400">Send Test Email</span>
        </div>
        <div className="grid sm:grid-cols-2">
          <div className="space-y-3 border-slate-200 p-4 sm:border-r dark:border-slate-700">
            <FakeField label="To" value="client@example.com, me@example.com" />
            <FakeField label="Subject" value="Spring sale: 20% off" />
            <div>
              <p className="mb-1 text-[11px] font-medium text-slate-500 dark:text-slate-400">HTML Content</p>
              <div className="space-y-1.5 rounded-md bg-slate-900 p-3 font-mono text-[10px] leading-4 dark:bg-slate-950">
                <p className="text-sky-300">
                  &lt;table <span className="text-amber-200">width</span>=
                  <span className="text-green-300">"600"</span>&gt;
                </p>
                <p className="pl-3 text-sky-300">
                  &lt;h1&gt;<span className="text-slate-200">Spring sale</span>&lt;/h1&gt;
                </p>
                <p className="pl-3 text-sky-300">
                  &lt;p&gt;<span className="text-slate-200">20% off everything…</span>&lt;/p&gt;
                </p>
                <p className="pl-3 text-sky-300">
                  &lt;a <span className="text-amber-200">class</span>=
                  <span className="text-green-300">"btn"</span>&gt;
                  <span className="text-slate-200">Shop now</span>&lt;/a&gt;
                </p>
                <p className="text-sky-300">&lt;/table&gt;</p>
              </div>
            </div>
            <div className="flex items-center justify-between pt-1">
              <span className="flex items-center gap-2 text-[11px] text-slate-600 dark:text-slate-300">
                <span className="flex h-4 w-7 items-center rounded-full bg-brand-600 p-0.5">
                  <span className="ml-auto size-3 rounded-full bg-white" />
                </span>
                Inline CSS
              </span>
              <span className="rounded-md bg-brand-600 px-2.5 py-1 text-[11px] font-medium text-white">
                Send Test Email
              </span>
            </div>
          </div>
          <div className="hidden bg-slate-100 p-4 sm:block dark:bg-slate-800/50">
            <div className="overflow-hidden rounded-lg bg-white shadow-sm">
              <div className="bg-brand-600 px-4 py-3 text-[11px] font-semibold tracking-wide text-white">
                ACME STORE
              </div>
              <div className="space-y-2 p-4">
                <p className="text-sm font-semibold text-slate-900">Spring sale</p>
                <p className="h-1.5 w-full rounded bg-slate-200" />
                <p className="h-1.5 w-11/12 rounded bg-slate-200" />
                <p className="h-1.5 w-4/5 rounded bg-slate-200" />
                <p className="pt-2">
                  <span className="inline-block rounded bg-slate-900 px-3 py-1.5 text-[10px] font-medium text-white">
                    Shop now
                  </span>
                </p>
              </div>
              <div className="border-t border-slate-100 px-4 py-2 text-[9px] text-slate-400">
                Unsubscribe · View in browser
              </div>
            </div>
            <p className="mt-3 flex items-center gap-1.5 text-[11px] text-slate-500 dark:text-slate-400">
              <LinkIcon className="size-3" /> Public link ready to share
            </p>
          </div>
        </div>
      </div>
    </div>
  );
}

function FakeField({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <p className="mb-1 text-[11px] font-medium text-slate-500 dark:text-slate-400">{label}</p>
      <p className="truncate rounded-md border border-slate-200 bg-white px-2 py-1.5 text-[11px] text-slate-700 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-300">
        {value}
      </p>
    </div>
  );
}
