import { Clock, CreditCard, LifeBuoy, ShieldAlert } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { SUPPORT_RESPONSE_TIME } from '../../../shared/plans.ts';
import { PageContainer } from '../../components/layout/page-container.tsx';
import { PublicLayout } from '../../components/layout/public-layout.tsx';
import { useDocumentTitle } from '../../components/layout/use-document-title.ts';
import { buttonClasses } from '../../components/ui/button.tsx';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { usePublicConfig } from '../../lib/public-config.ts';
import { proseLink } from './legal-layout.tsx';

function ContactCard({
  icon,
  title,
  children,
  action,
}: {
  icon: ReactNode;
  title: string;
  children: ReactNode;
  action: ReactNode;
}) {
  return (
    <div className="flex flex-col rounded-2xl border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900">
      <span className="flex size-11 items-center justify-center rounded-xl bg-brand-50 text-brand-600 dark:bg-brand-950 dark:text-brand-300 [&_svg]:size-5">
        {icon}
      </span>
      <h2 className="mt-5 text-lg font-semibold text-slate-900 dark:text-white">{title}</h2>
      <div className="mt-2 flex-1 text-sm leading-6 text-slate-600 dark:text-slate-400">{children}</div>
      <div className="mt-6">{action}</div>
    </div>
  );
}

function MailButton({
  address,
  label,
  variant,
}: {
  address: string | undefined;
  label: string;
  variant: 'primary' | 'outline';
}) {
  if (!address) return <Skeleton className="h-10 w-full" />;
  return (
    <a href={`mailto:${address}`} className={buttonClasses({ variant, className: 'w-full' })}>
      {label}
    </a>
  );
}

export function ContactPage() {
  useDocumentTitle('Contact');
  const config = usePublicConfig();
  const support = config.data?.supportEmail;
  const abuse = config.data?.abuseEmail;

  return (
    <PublicLayout>
      <PageContainer className="py-14 sm:py-20">
        <div className="mx-auto max-w-2xl text-center">
          <h1 className="text-4xl font-semibold tracking-tight text-slate-900 sm:text-5xl dark:text-white">
            Contact Us
          </h1>
          <p className="mt-4 text-lg leading-8 text-slate-600 dark:text-slate-400">
            Questions, feedback or a problem with a send? Real people read every message.
          </p>
          <p className="mt-6 inline-flex items-center gap-2 rounded-full bg-green-50 px-4 py-1.5 text-sm font-medium text-green-800 ring-1 ring-green-600/20 ring-inset dark:bg-green-950/60 dark:text-green-300 dark:ring-green-400/25">
            <Clock aria-hidden="true" className="size-4" />
            Typical response time: {SUPPORT_RESPONSE_TIME}
          </p>
        </div>

        {config.isError ? (
          <p
            role="alert"
            className="mx-auto mt-10 max-w-2xl rounded-lg bg-red-50 p-4 text-center text-sm text-red-800 dark:bg-red-950/60 dark:text-red-300"
          >
            We could not load our contact addresses. Please reload the page.
          </p>
        ) : null}

        <div className="mx-auto mt-12 grid max-w-5xl gap-6 md:grid-cols-3">
          <ContactCard
            icon={<LifeBuoy aria-hidden="true" />}
            title="Support"
            action={<MailButton address={support} label="Email Support" variant="primary" />}
          >
            <p>
              Help with your account, sending, deliverability or anything else. Write to{' '}
              {support ? (
                <a href={`mailto:${support}`} className={proseLink}>
                  {support}
                </a>
              ) : (
                <Skeleton className="h-4 w-32 align-middle" />
              )}{' '}
              and include the email&apos;s subject and the time you sent it if it is about a send.
            </p>
          </ContactCard>
          <ContactCard
            icon={<CreditCard aria-hidden="true" />}
            title="Plans and Billing"
            action={
              <Link to="/plan" className={buttonClasses({ variant: 'outline', className: 'w-full' })}>
                See Plans and FAQ
              </Link>
            }
          >
            <p>
              Upgrading, cancelling and switching plans are covered in the plan FAQ. For invoices or anything
              the FAQ does not answer, email support.
            </p>
          </ContactCard>
          <ContactCard
            icon={<ShieldAlert aria-hidden="true" />}
            title="Report abuse"
            action={<MailButton address={abuse} label="Report abuse" variant="outline" />}
          >
            <p>
              Received an email sent through Proofmail that you did not expect, or found a shared link that
              breaks our{' '}
              <Link to="/terms" className={proseLink}>
                terms
              </Link>
              ? Send us the link or the email headers and we will act on it.
            </p>
          </ContactCard>
        </div>
      </PageContainer>
    </PublicLayout>
  );
}
