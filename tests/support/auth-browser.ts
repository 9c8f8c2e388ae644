import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Clock } from '../../src/server/clock.ts';
import { startMailDelivery, type MailDelivery } from '../../src/server/mail/mail-delivery.ts';
import type { CaughtMessage, MailboxResponse } from '../../src/shared/contract/dev-mailbox.ts';
import { startTestServer, type TestServer, type TestServerOptions } from './e2e-server.ts';
import { poll } from './poll.ts';
import { expectToast } from './toasts.ts';

/**
 * Accounts in the browser tests (auth-*, app-shell): the app with mail delivery to its catcher,
 * the mailbox, the token the app stores, and the sign-in form.
 */

/** A clock that runs like the real one but can jump ahead: link expiry without waiting. */
export class JumpClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export interface AuthServer {
  server: TestServer;
  close: () => Promise<void>;
}

/**
 * The app as `npm start` runs it without SMTP_URL: a local catcher plus delivery workers, so
 * mails arrive in /api/dev/mailbox. A small ALTCHA work factor keeps sign-up quick.
 */
export async function startAuthServer(options: TestServerOptions = {}): Promise<AuthServer> {
  const server = await startTestServer({
    ...options,
    env: { CAPTCHA_MAX_NUMBER: '1000', ...options.env },
    deps: { mailCatcher: true, ...options.deps },
  });
  let delivery: MailDelivery | undefined;
  try {
    delivery = await startMailDelivery({
      config: server.config,
      db: server.db,
      connectionString: server.databaseUrl,
      concurrency: 2,
      // Real time: the outbox stamps mail with the database's clock, and a jumped app clock
      // would make the worker think fresh mail is too old to deliver.
      worker: { pollIntervalMs: 200 },
    });
  } catch (err) {
    await server.close();
    throw err;
  }
  return {
    server,
    close: async () => {
      await delivery?.stop({ deadlineMs: 2_000 });
      await server.close();
    },
  };
}

async function mailbox(server: TestServer, to: string): Promise<CaughtMessage[]> {
  const res = await fetch(`${server.baseUrl}/api/dev/mailbox?to=${encodeURIComponent(to)}&limit=200`);
  expect(res.status).toBe(200);
  return ((await res.json()) as MailboxResponse).messages;
}

/** Waits for a mail to `to` whose subject matches and whose id is not in `seen`; returns it. */
export async function waitForMail(
  server: TestServer,
  to: string,
  subject: RegExp,
  seen: Set<string> = new Set(),
  timeoutMs = 20_000,
): Promise<CaughtMessage> {
  const found = await poll(
    async () => (await mailbox(server, to)).find((m) => subject.test(m.subject) && !seen.has(m.id)),
    {
      timeoutMs,
      intervalMs: 200,
      what: `new mail to ${to} with a subject like ${subject}`,
      details: async () => `mailbox: ${JSON.stringify((await mailbox(server, to)).map((m) => m.subject))}`,
    },
  );
  seen.add(found.id);
  return found;
}

/** Ids of every mail to `to` so far (to wait for the next one). */
export async function seenMail(server: TestServer, to: string): Promise<Set<string>> {
  return new Set((await mailbox(server, to)).map((m) => m.id));
}

/** The first link to `path` (e.g. /verify) in a mail's text, relative to the app. */
export function linkIn(message: CaughtMessage, server: TestServer, path: string): string {
  const body = `${message.text ?? ''}\n${message.html ?? ''}`;
  const escaped = `${server.baseUrl}${path}`.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const match = new RegExp(`${escaped}\\?token=[A-Za-z0-9_%.~-]+`).exec(body);
  if (!match) throw new Error(`No ${path} link in mail "${message.subject}":\n${message.text}`);
  return match[0].slice(server.baseUrl.length);
}

/** Stores a session token in the page's origin (the page must be on the app). */
export async function storeToken(page: Page, token: string | null): Promise<void> {
  await page.evaluate((t) => {
    if (t) localStorage.setItem('auth_token', t);
    else localStorage.removeItem('auth_token');
  }, token);
}

export async function tokenOf(page: Page): Promise<string | null> {
  return page.evaluate(() => localStorage.getItem('auth_token'));
}

/** Fills and submits /signin; does not wait for the outcome. */
export async function submitSignIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
}

/** Signs in through /signin and waits for the app. */
export async function signInThroughPage(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/signin');
  await submitSignIn(page, email, password);
  await expectToast(page, 'Welcome back!');
  await page.waitForURL('**/app/send');
}

/** Opens the avatar menu and signs out; waits for /signin. */
export async function signOutThroughMenu(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'Sign Out' }).click();
  await page.waitForURL('**/signin');
}
