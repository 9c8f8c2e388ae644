import { Link } from 'react-router';
import { MAX_RECIPIENTS, PRO_PRICE_MONTHLY } from '../../../shared/plans.ts';
import { useDocumentTitle } from '../../components/layout/use-document-title.ts';
import { ConfigMailto, ConfigText, LegalLayout, proseLink } from './legal-layout.tsx';
import { FreeAllowance } from './pricing-cards.tsx';

export function TermsPage() {
  useDocumentTitle('Terms of Service');
  return (
    <LegalLayout
      title="Terms of Service"
      intro={
        <p>
          These terms are the agreement between you and Proofmail when you use the service. They are written
          to be read: if something is unclear,{' '}
          <Link to="/contact" className={proseLink}>
            ask us
          </Link>
          . By creating an account or sending an email with Proofmail you accept them.
        </p>
      }
      sections={[
        {
          id: 'service',
          title: 'The Service',
          body: (
            <p>
              Proofmail lets you compose or paste HTML email, optionally inline its CSS, send it as a test to
              a small number of inboxes, keep a history of what you sent and share an email through a public
              link. It is a tool for testing and reviewing emails. It is not a newsletter, marketing or
              bulk-sending service.
            </p>
          ),
        },
        {
          id: 'account',
          title: 'Your Account',
          body: (
            <ul>
              <li>You must give a valid email address and verify it before you can send.</li>
              <li>
                Keep your password and devices secure. You are responsible for what is sent from your account;
                tell us at once if you think someone else has access to it.
              </li>
              <li>One person per account. You must be old enough to agree to these terms where you live.</li>
            </ul>
          ),
        },
        {
          id: 'plans',
          title: 'Plans, Limits and Fair Use',
          body: (
            <>
              <p>
                <strong>Free</strong> includes <FreeAllowance />, counted per calendar month (UTC) and reset
                on the first day of each month, with up to {MAX_RECIPIENTS} recipients per send. The history
                view and public share links are not part of Free.
              </p>
              <p>
                <strong>Pro</strong> costs ${PRO_PRICE_MONTHLY} per month and includes unlimited sends subject
                to fair use, which today means up to{' '}
                <ConfigText pick={(c) => c.proMonthlyLimit.toLocaleString('en-US')} /> sends per month, plus
                history, public share links, a priority delivery queue and higher rate limits.
              </p>
              <p>
                A send counts once however many recipients it has. A send that fails permanently is not
                counted. Deleting an email does not give the send back. To protect the service we apply
                per-minute rate limits and may slow down or pause sending that looks automated or abusive.
              </p>
            </>
          ),
        },
        {
          id: 'recipients',
          title: 'Recipients and Consent',
          body: (
            <>
              <p>
                Only send to addresses that belong to you, your team or your client, and only when the owner
                of the address expects to receive your test. You must not send to purchased, scraped or rented
                lists, or to anyone who has asked you to stop.
              </p>
              <p>
                Every email we deliver comes from Proofmail&apos;s sending address with your address as the
                reply-to, so recipients can always reach you directly.
              </p>
            </>
          ),
        },
        {
          id: 'acceptable-use',
          title: 'Acceptable Use',
          body: (
            <>
              <p>You must not use Proofmail to send or share:</p>
              <ul>
                <li>spam, unsolicited advertising or bulk mail;</li>
                <li>phishing, or emails that impersonate another person, brand or organisation;</li>
                <li>malware, or links to malware or credential-harvesting pages;</li>
                <li>content that is illegal, harassing, or infringes someone else&apos;s rights;</li>
                <li>
                  anything meant to probe, overload or get around the limits and security of the service.
                </li>
              </ul>
            </>
          ),
        },
        {
          id: 'abuse',
          title: 'Reporting Abuse and Enforcement',
          body: (
            <>
              <p>
                If you received an email sent through Proofmail that you did not expect, or found a shared
                link that breaks these rules, report it to <ConfigMailto which="abuseEmail" />. Every public
                email page also has a Report abuse link. Please include the link or the email headers.
              </p>
              <p>
                We review every report. When an account breaks these terms we may remove content, disable
                share links, pause sending or close the account, without notice where the harm is serious.
                Paid time is not refunded when an account is closed for abuse.
              </p>
            </>
          ),
        },
        {
          id: 'content',
          title: 'Your Content',
          body: (
            <p>
              You keep all rights to the HTML, text and images you send. You give us permission to store,
              process and deliver that content only as needed to run the service for you: sending it, showing
              it in your history and showing it on the share links you create. You confirm that you have the
              right to use everything you send.
            </p>
          ),
        },
        {
          id: 'share-links',
          title: 'Public Share Links',
          body: (
            <p>
              A share link can be opened by anyone who has it, without signing in. Share only what you are
              happy for the holder of the link to see. You can turn sharing off at any time; the old link then
              stops working, and sharing again creates a new link. Shared pages are marked so that search
              engines do not index them.
            </p>
          ),
        },
        {
          id: 'billing',
          title: 'Billing and Cancellation',
          body: (
            <ul>
              <li>
                Pro is billed monthly in advance through our payment processor, Stripe. Any applicable taxes
                are shown at checkout.
              </li>
              <li>
                You can cancel at any time from Manage Billing. Pro stays active until the end of the period
                you paid for; the account then returns to the Free plan and its limits.
              </li>
              <li>
                If a payment fails we will ask you to update your payment method; Pro features may stop if the
                subscription remains unpaid.
              </li>
              <li>We will tell you at least 30 days before a price change applies to you.</li>
            </ul>
          ),
        },
        {
          id: 'availability',
          title: 'Availability and Changes to the Service',
          body: (
            <p>
              We work to keep Proofmail available and your data safe, but we do not promise that the service
              will be uninterrupted or that every email will be delivered: receiving mail servers decide what
              they accept. We may change or remove features; if a change takes away something you pay for, we
              will tell you in advance.
            </p>
          ),
        },
        {
          id: 'liability',
          title: 'Disclaimers and Liability',
          body: (
            <p>
              The service is provided &quot;as is&quot;. To the extent the law allows, we are not liable for
              indirect or consequential losses, and our total liability for any claim is limited to the amount
              you paid us in the 12 months before it. Nothing in these terms limits liability that cannot be
              limited by law.
            </p>
          ),
        },
        {
          id: 'changes',
          title: 'Changes to These Terms',
          body: (
            <p>
              We may update these terms. The date at the top shows the latest version. For important changes
              we will email you before they take effect; continuing to use Proofmail afterwards means you
              accept them. You can close your account at any time.
            </p>
          ),
        },
        {
          id: 'contact',
          title: 'Contact',
          body: (
            <p>
              Questions about these terms: <ConfigMailto which="supportEmail" />. Privacy questions are
              answered in our{' '}
              <Link to="/privacy" className={proseLink}>
                Privacy Policy
              </Link>
              .
            </p>
          ),
        },
      ]}
    />
  );
}
