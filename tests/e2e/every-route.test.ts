import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/server/accounts/account-mail.ts';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { setupBrowser } from '../support/browser.ts';
import { poll } from '../support/poll.ts';
import { createUser, type TestUser } from '../support/users.ts';
import { startAuthServer, type AuthServer } from '../support/auth-browser.ts';

/**
 * Every route of the app, public, sign-in, app, share and mailbox, loaded in Chromium:
 * - not one console warning or error, no exception, no failed request. (React Router warns on a
 *   first load without a HydrateFallback and on a leaf route without an element; such warnings
 *   hide real ones.) A route that shows a refusal on purpose may have exactly the browser's own
 *   line about that answer, and nothing else;
 * - its headings and controls in Title Case, except the spec's own words and code (docs/copy-style.md).
 */

const browser = setupBrowser();
let auth: AuthServer;
let pro: TestUser;
let emailId: string;
let slug: string;
let verifyToken: string;
let resetToken: string;

beforeAll(async () => {
  auth = await startAuthServer();
  const { db } = auth.server;
  pro = await createUser(db, { plan: 'pro' });
  ({ id: emailId } = await insertEmail(db, {
    userId: pro.user.id,
    to: 'client@example.com',
    subject: 'Spring newsletter',
    html: '<h1>Spring</h1><p>Hello.</p>',
    inlineCss: false,
    createdAt: new Date(),
  }));
  const shared = await fetch(`${auth.server.baseUrl}/api/email/${emailId}/share`, {
    method: 'POST',
    headers: pro.headers,
  });
  slug = ((await shared.json()) as { email: { publicSlug: string } }).email.publicSlug;
  const unverified = await createUser(db, { verified: false });
  verifyToken = await issueToken(db, {
    userId: unverified.user.id,
    purpose: 'verify',
    payload: { email: unverified.user.email.toLowerCase() },
    now: new Date(),
  });
  resetToken = await issueToken(db, { userId: pro.user.id, purpose: 'reset', now: new Date() });
});
afterAll(async () => auth?.close());

interface Visit {
  /** A function: share, reset and verification paths exist only once beforeAll has run. */
  path: () => string;
  /** The h1 that shows the page has rendered. */
  heading: string | RegExp;
  /** Where the app ends up, when it redirects. */
  lands?: string;
  /** The one console line the browser writes for a refusal the page shows on purpose. */
  expected?: RegExp;
  /** Text the user wrote (an email's subject) that the copy check leaves alone. */
  userText?: string[];
}

const PUBLIC: Visit[] = [
  { path: () => '/', heading: 'Test Your HTML Emails in Real Inboxes' },
  { path: () => '/plan', heading: 'Plans and Pricing' },
  { path: () => '/terms', heading: 'Terms of Service' },
  { path: () => '/privacy', heading: 'Privacy Policy' },
  { path: () => '/contact', heading: /Contact/i },
  { path: () => '/docs/api', heading: 'API Reference' },
  { path: () => '/signup', heading: 'Create Your Account' },
  { path: () => '/signin', heading: 'Welcome Back' },
  { path: () => '/forgot-password', heading: 'Forgot Your Password?' },
  { path: () => '/reset-password', heading: 'Invalid reset link' },
  { path: () => '/verify', heading: 'Invalid verification link' },
  {
    path: () => '/auth/callback?error=access_denied',
    heading: 'Welcome Back',
    lands: '/signin?error=access_denied',
  },
  { path: () => '/cancel-email-change', heading: 'Invalid or Expired Link' },
  { path: () => '/s/', heading: 'Invalid share link' },
  { path: () => '/dev/mailbox', heading: 'Local Mailbox' },
  { path: () => '/no-such-page', heading: /not found/i },
  { path: () => '/app/send', heading: 'Welcome Back', lands: '/signin' },
];

const SIGNED_IN: Visit[] = [
  { path: () => '/app', heading: 'Send Test Email', lands: '/app/send' },
  { path: () => '/app/send', heading: 'Send Test Email' },
  { path: () => '/app/history', heading: 'Emails' },
  { path: () => `/app/email/${emailId}`, heading: 'Spring newsletter', userText: ['Spring newsletter'] },
  {
    path: () => `/app/email/${emailId}/compare/${emailId}`,
    heading: 'Compare Versions',
    userText: ['Spring newsletter'],
  },
  { path: () => '/app/profile', heading: 'Profile' },
  { path: () => '/app/account', heading: 'Account' },
  { path: () => '/app/account?payment=success', heading: 'Account' },
  { path: () => '/app/about', heading: 'About Proofmail' },
  { path: () => '/docs/api', heading: 'API Reference' },
  { path: () => '/plan', heading: 'Plans and Pricing' },
  { path: () => '/', heading: 'Send Test Email', lands: '/app/send' },
];

/** Links with a secret in them, named for the report without it. */
const LINKS: Array<[string, Visit]> = [
  ['/s/{slug}', { path: () => `/s/${slug}`, heading: 'Spring newsletter', userText: ['Spring newsletter'] }],
  [
    '/reset-password?token={live}',
    { path: () => `/reset-password?token=${resetToken}`, heading: /new password/i },
  ],
  ['/verify?token={live}', { path: () => `/verify?token=${verifyToken}`, heading: /Email Verified/i }],
  // Refusals the page shows on purpose: the browser notes the answer's status, nothing more.
  [
    '/s/{unknown}',
    { path: () => '/s/AAAAAAAAAAAAAAAAAAAAAAAA', heading: 'Email Not Found', expected: /status of 404/ },
  ],
  [
    '/verify?token={dead}',
    {
      path: () => '/verify?token=not-a-real-token',
      heading: 'Invalid verification link',
      expected: /status of 400/,
    },
  ],
];

/** The spec's texts that are not Title Case, shown verbatim (docs/copy-style.md). */
const SPEC_TEXTS = new Set([
  'Invalid reset link',
  'Invalid verification link',
  'Invalid share link',
  'Email not found',
  'No emails sent yet',
  'No emails found matching the query',
  'Clear search',
  'Copy link',
  'Report abuse',
  'Upgrade to Pro for unlimited sends',
]);

const MINOR = new Set(
  'a an the and but or nor for so yet as at by for from in into of off on over per to up via with'.split(' '),
);

/** Why `text` is not Title Case as docs/copy-style.md defines it, or null when it is. */
function titleCaseProblem(text: string): string | null {
  if (SPEC_TEXTS.has(text)) return null;
  // Numbering ("1. The Service") is not a word.
  const words = text.split(/\s+/).filter((w) => /\p{L}/u.test(w));
  for (const [i, raw] of words.entries()) {
    const afterStop = i > 0 && /[:?!]$/.test(words[i - 1]!);
    const edge = i === 0 || i === words.length - 1 || afterStop;
    for (const [j, part] of raw
      .replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '')
      .split('-')
      .entries()) {
      if (!/^\p{L}/u.test(part)) continue;
      const minor = MINOR.has(part.toLowerCase()) && j === 0 && !edge;
      const upper = /^\p{Lu}/u.test(part);
      if (minor && upper) return `"${part}" should be lower case`;
      if (!minor && !upper) return `"${part}" should be capitalised`;
    }
  }
  return null;
}

/** Headings and visible controls, with their text, for the copy check. */
async function copyOf(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const norm = (t: string) => t.replace(/\s+/g, ' ').trim();
    const asButton = (el: Element) =>
      el.tagName === 'A' &&
      ['justify-center', 'rounded-lg', 'whitespace-nowrap'].every((c) => el.classList.contains(c));
    const found: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>('h1, h2, h3, h4, button, a, [role="tab"]')) {
      if (el.closest('[data-message]') || !el.checkVisibility()) continue;
      if (el.tagName === 'A' && !asButton(el)) continue;
      // Code (a path, a header name) keeps its own spelling: it is not copy.
      let text = el.innerText;
      for (const code of el.querySelectorAll<HTMLElement>('code')) text = text.replace(code.innerText, ' ');
      text = norm(text);
      if (text) found.push(text);
    }
    return found;
  });
}

/** Resolves once `pending` has been empty for 500 ms (what Playwright calls "networkidle"). */
async function networkQuiet(pending: () => Request[], timeoutMs: number): Promise<void> {
  let quietSince = Date.now();
  await poll(
    () => {
      if (pending().length > 0) quietSince = Date.now();
      return Date.now() - quietSince >= 500;
    },
    {
      timeoutMs,
      what: 'a quiet network',
      details: () =>
        `still in flight: ${pending()
          .map((r) => `${r.method()} ${r.url()}`)
          .join(', ')}`,
    },
  );
}

/** What one visit saw: its problems, and what it has in flight. */
interface Recording {
  problems: string[];
  inFlight: Set<Request>;
  /** Script URLs of proof-of-work workers that have ended (see networkQuiet's use below). */
  closedWorkers: Set<string>;
}

/** Per page, the visit being recorded: the page's listeners are attached once, on its first visit. */
const recordings = new WeakMap<Page, { current: Recording }>();

function startRecording(page: Page): Recording {
  const recording: Recording = { problems: [], inFlight: new Set(), closedWorkers: new Set() };
  const slot = recordings.get(page);
  if (slot) {
    slot.current = recording;
    return recording;
  }
  const next = { current: recording };
  recordings.set(page, next);
  const now = () => next.current;
  page.on('console', (msg) => {
    if (['warning', 'error', 'assert'].includes(msg.type()))
      now().problems.push(`${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => now().problems.push(`exception: ${err.message}`));
  // A proof-of-work worker that found its answer is terminated at once, and the script request of
  // a sibling still loading then never ends: Playwright's own "networkidle" would wait for it
  // forever, so the quiet wait leaves those out.
  page.on('worker', (worker) => {
    const { closedWorkers } = now();
    worker.on('close', () => closedWorkers.add(worker.url()));
  });
  page.on('request', (req) => now().inFlight.add(req));
  page.on('requestfinished', (req) => now().inFlight.delete(req));
  page.on('requestfailed', (req) => {
    now().inFlight.delete(req);
    if (req.failure()?.errorText !== 'net::ERR_ABORTED') now().problems.push(`request failed: ${req.url()}`);
  });
  return recording;
}

/**
 * Loads `visit.path` in `page` (the file's shared page, navigated from visit to visit: each visit is
 * still a whole document load) and returns every warning, error and failure the load caused.
 */
async function problemsOf(page: Page, visit: Visit): Promise<string[]> {
  const { problems, inFlight, closedWorkers } = startRecording(page);
  const path = visit.path();
  await page.goto(path);
  // A busy machine (the whole suite on 2 cores) can take more than the default 15 s to show a page.
  await page.getByRole('heading', { level: 1, name: visit.heading }).waitFor({ timeout: 30_000 });
  if (visit.lands) await page.waitForURL((url) => `${url.pathname}${url.search}` === visit.lands);
  if (path === '/signup') await page.locator('[data-captcha-phase="ready"]').waitFor();
  // Late work (queries, lazy chunks, the challenge) has finished when the network is quiet.
  await networkQuiet(() => [...inFlight].filter((r) => !closedWorkers.has(r.url())), 45_000);
  for (const text of await copyOf(page)) {
    if (visit.userText?.includes(text)) continue;
    const why = titleCaseProblem(text);
    if (why) problems.push(`copy: "${text}": ${why}`);
  }
  if (!visit.expected) return problems;
  const expected = problems.filter((p) => p.startsWith('error: ') && visit.expected!.test(p));
  expect(expected, `${path}: the expected refusal`).toHaveLength(1);
  return problems.filter((p) => !expected.includes(p));
}

describe('the Title Case check', () => {
  it('accepts Title Case and the spec texts, and names the word that breaks it', () => {
    for (const ok of [
      'Back to Sign In',
      "Didn't Get It? Try Again",
      'From Markup to Client Sign-Off',
      'Test Your HTML Emails in Real Inboxes',
      'Continue with GitHub',
      'What We Store and for How Long',
      'Invalid reset link',
    ]) {
      expect(titleCaseProblem(ok), ok).toBeNull();
    }
    expect(titleCaseProblem('Request a new link')).toBe('"new" should be capitalised');
    expect(titleCaseProblem('Back To Sign In')).toBe('"To" should be lower case');
    expect(titleCaseProblem('Sign in')).toBe('"in" should be capitalised');
  });
});

describe('every route: no console warning or error, headings and controls in Title Case', () => {
  describe('signed out', () => {
    it.each(PUBLIC.map((v) => [v.path(), v] as const))('%s', async (_path, visit) => {
      expect(await problemsOf(await browser.sharedPage(auth.server), visit)).toEqual([]);
    });
  });

  describe('signed in', () => {
    it.each(SIGNED_IN.map((v) => [v.path().replaceAll('undefined', '{id}'), v] as const))(
      '%s',
      async (_path, visit) => {
        expect(await problemsOf(await browser.sharedPage(auth.server, pro), visit)).toEqual([]);
      },
    );
  });

  describe('share, reset and verification links', () => {
    it.each(LINKS)('%s', async (_name, visit) => {
      expect(await problemsOf(await browser.sharedPage(auth.server), visit)).toEqual([]);
    });
  });
});
