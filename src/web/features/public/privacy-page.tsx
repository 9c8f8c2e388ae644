import { Link } from 'react-router';
import { useDocumentTitle } from '../../components/layout/use-document-title.ts';
import { ConfigMailto, LegalLayout, proseLink } from './legal-layout.tsx';
import { FreeAllowance } from './pricing-cards.tsx';

const RETENTION: Array<[string, string, string]> = [
  [
    'Account',
    'Email address, password hash, verification state, plan, sign-in alerts setting',
    'Until you delete your account',
  ],
  [
    'Sent emails',
    'Recipients, subject, the HTML as sent, time, delivery status, share link',
    'Until you delete the email or your account',
  ],
  [
    'Usage records',
    'One entry per send (time, no content), used for monthly limits and fair use',
    'As long as the account exists',
  ],
  [
    'Sign-in sessions',
    'A hashed session token, its expiry and when it was last used',
    'Until you sign out, after 7 days without use, or 30 days at most; a password change ends them all',
  ],
  [
    'Verification and reset links',
    'A hashed, single-use token',
    'Until used; verification links expire after 24 hours, password reset links after 30 minutes',
  ],
  [
    'Billing',
    'Stripe customer and subscription identifiers and status; never card numbers',
    'As long as the account exists, and invoices as tax law requires',
  ],
  [
    'Server logs',
    'Time, path (without query strings), status, IP address; never passwords or tokens',
    'Up to 30 days',
  ],
];

export function PrivacyPage() {
  useDocumentTitle('Privacy Policy');
  return (
    <LegalLayout
      title="Privacy Policy"
      intro={
        <p>
          Proofmail stores what it needs to send your test emails, keep your history and run your account, and
          nothing more. We do not sell data, show ads, or track you across other sites. This page explains
          what we store, why, and for how long.
        </p>
      }
      sections={[
        {
          id: 'what-we-store',
          title: 'What We Store and for How Long',
          body: (
            <>
              {/* A table from sm up; on a phone each row is a card, so no column hides off-screen. */}
              <div className="hidden overflow-hidden rounded-xl border border-slate-200 sm:block dark:border-slate-800">
                <table className="w-full text-left text-sm">
                  <caption className="sr-only">Data we store and how long we keep it</caption>
                  <thead className="bg-slate-50 text-slate-900 dark:bg-slate-900 dark:text-white">
                    <tr>
                      <th scope="col" className="px-4 py-3 font-semibold">
                        Data
                      </th>
                      <th scope="col" className="px-4 py-3 font-semibold">
                        What it contains
                      </th>
                      <th scope="col" className="px-4 py-3 font-semibold">
                        Kept
                      </th>
                    </tr>
                  </thead>
                  <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
                    {RETENTION.map(([name, what, kept]) => (
                      <tr key={name} className="align-top">
                        <th scope="row" className="px-4 py-3 font-medium text-slate-900 dark:text-white">
                          {name}
                        </th>
                        <td className="px-4 py-3">{what}</td>
                        <td className="px-4 py-3">{kept}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <div className="space-y-3 sm:hidden" data-testid="retention-cards">
                {RETENTION.map(([name, what, kept]) => (
                  <div
                    key={name}
                    className="rounded-xl border border-slate-200 p-4 text-sm dark:border-slate-800"
                  >
                    <p className="font-semibold text-slate-900 dark:text-white">{name}</p>
                    <dl className="mt-2 space-y-2">
                      <div>
                        <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">
                          What it contains
                        </dt>
                        <dd className="mt-0.5">{what}</dd>
                      </div>
                      <div>
                        <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">
                          Kept
                        </dt>
                        <dd className="mt-0.5">{kept}</dd>
                      </div>
                    </dl>
                  </div>
                ))}
              </div>
              <p>
                When you delete an email it disappears from your history and its share link stops working.
                Deleting an email does not reset your monthly count (the Free plan includes <FreeAllowance />
                ), because the usage record holds no content and is kept separately.
              </p>
            </>
          ),
        },
        {
          id: 'recipients',
          title: "Your Recipients' Addresses",
          body: (
            <>
              <p>
                The addresses you send to are stored with the email so you can see who received each test. We
                use them only to deliver that email. We never add recipients to a list, contact them for our
                own purposes or share them with anyone else.
              </p>
              <p>
                You are responsible for having each recipient&apos;s permission to send them your test (see
                the{' '}
                <Link to="/terms" className={proseLink}>
                  Terms of Service
                </Link>
                ). A recipient who wants their address removed can ask you, or write to us.
              </p>
            </>
          ),
        },
        {
          id: 'use',
          title: 'How We Use Your Data',
          body: (
            <ul>
              <li>to deliver your emails and show them in your history and on the share links you create;</li>
              <li>
                to sign you in, verify your address, reset your password and send sign-in alerts if you turn
                them on;
              </li>
              <li>to apply plan limits, rate limits and fair use, and to investigate abuse reports;</li>
              <li>to bill Pro subscriptions and answer your support requests.</li>
            </ul>
          ),
        },
        {
          id: 'processors',
          title: 'Who Else Handles It',
          body: (
            <>
              <p>We use a small number of providers, each only for its job:</p>
              <ul>
                <li>
                  <strong>Email delivery</strong>: the mail relay that carries your emails to the
                  recipients&apos; mail servers, which then receive the message like any other email.
                </li>
                <li>
                  <strong>Stripe</strong> processes payments for Pro. Card details go to Stripe directly and
                  never touch our servers.
                </li>
                <li>
                  <strong>Google or GitHub</strong>, only if you choose to sign in with them: we receive your
                  verified email address and an account identifier.
                </li>
              </ul>
              <p>We disclose data to authorities only when the law requires it.</p>
            </>
          ),
        },
        {
          id: 'share-links',
          title: 'Public Share Links',
          body: (
            <p>
              When you share an email, anyone with its link can see the subject, the date and the email
              itself, but not your account or the recipients. Links are long and random, so they cannot be
              guessed, and shared pages ask search engines not to index them. Turn sharing off to make the
              email private again.
            </p>
          ),
        },
        {
          id: 'storage',
          title: 'Cookies and Local Storage',
          body: (
            <p>
              We do not use advertising or analytics cookies. Your browser keeps your session token and your
              light or dark theme choice in local storage on your device. Signing out removes the session
              token.
            </p>
          ),
        },
        {
          id: 'security',
          title: 'Security',
          body: (
            <p>
              Passwords are stored only as salted Argon2 hashes, and session and link tokens only as hashes.
              Email previews are shown in a sandboxed frame where scripts cannot run. Connections to the
              service are encrypted in production, and access to stored data is limited to what is needed to
              operate Proofmail.
            </p>
          ),
        },
        {
          id: 'rights',
          title: 'Your Choices and Rights',
          body: (
            <>
              <p>
                You can delete any email from your history at any time, change your email address and password
                in your account, and turn sign-in alerts on or off. You can ask us for a copy of your data, to
                correct it, or to delete your account and everything in it.
              </p>
              <p>
                Write to <ConfigMailto which="supportEmail" /> and we will answer within 30 days, usually much
                sooner. You also have the right to complain to your local data protection authority.
              </p>
            </>
          ),
        },
        {
          id: 'changes',
          title: 'Changes to This Policy',
          body: (
            <p>
              If we change how we handle your data we will update this page and its date, and email you before
              an important change takes effect.
            </p>
          ),
        },
      ]}
    />
  );
}
