import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Clock } from '../../src/server/clock.ts';
import { startMailDelivery, type MailDelivery } from '../../src/server/mail/mail-delivery.ts';
import type { CaughtMessage, MailboxResponse } from '../../src/shared/contract/dev-mailbox.ts';
import { startTestServer, type TestServer, type TestServerOptions } from '../support/e2e-server.ts';

/** Shared by the accounts browser tests (auth-*.test.ts, app-shell*.test.ts). */

export const PASSWORD = 'correct horse battery';

let counter = 0;
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}.${Date.now().toString(36)}.${counter}@example.com`;
}

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
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await mailbox(server, to)).find((m) => subject.test(m.subject) && !seen.has(m.id));
    if (found) {
      seen.add(found.id);
      return found;
    }
    if (Date.now() > deadline) {
      const all = (await mailbox(server, to)).map((m) => m.subject);
      throw new Error(`No new mail to ${to} with a subject like ${subject} within ${timeoutMs} ms (mailbox: ${JSON.stringify(all)})`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
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

/** A toast (title, and description when given) in the notifications region. */
export async function expectToast(page: Page, title: string, description?: string): Promise<void> {
  const region = page.getByRole('region', { name: 'Notifications' });
  const item = region.locator('[data-kind]').filter({ has: page.getByText(title, { exact: true }) });
  await item.first().waitFor();
  if (description !== undefined) {
    await item.filter({ has: page.getByText(description, { exact: true }) }).first().waitFor();
  }
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
