import { textFromHtml } from '../../src/server/mail/text-part.ts';
import { SmtpSink } from '../../tests/support/smtp-sink.ts';
import { createUser, type TestUser } from '../../tests/support/users.ts';
import { startChildServer } from './child-server.ts';
import type { BenchContext } from './metric.ts';
import { rawSmtpRate } from './raw-smtp.ts';

/** What the send benchmarks (`send`, `send-cpu`) send and how the app is set up for them. */
export const SEND_MAIL_FROM = 'Proofmail <no-reply@proofmail.test>';
/** About 12 KB of newsletter-like HTML. */
export const SEND_HTML = `<!doctype html><html><body><table width="600">${'<tr><td style="padding:16px;font-family:Arial;color:#333">Spring collection: hand-finished, made to last, and shipped free this week only. Every piece is checked twice.</td></tr>'.repeat(60)}</table></body></html>`;

export interface SendApp {
  sink: SmtpSink;
  database: Awaited<ReturnType<Awaited<ReturnType<BenchContext['postgres']>>['createDatabase']>>;
  app: Awaited<ReturnType<typeof startChildServer>>;
  /**
   * One Pro user per connection: a user's sends serialise on their usage counters (that is what
   * keeps limits exact), so 8 connections of one user would measure one user's queue.
   */
  users: TestUser[];
  /** The JSON request headers of the user for request `i` (requests cycle through the users). */
  headersOf(i: number): Record<string, string>;
  /**
   * Posts `n` sends to `/api/email/send` over 8 connections (request `i`'s body from `bodyOf`),
   * then waits until the sink holds all `n` mails (clear it first).
   */
  sendAll(n: number, bodyOf: (i: number) => string): Promise<void>;
  /**
   * The raw side: `n` mails of the same email (HTML and its text part) from nodemailer's pooled
   * transport straight to the sink over 4 connections (clears it first); mails per second.
   */
  sendRaw(n: number, tag: string): Promise<number>;
  stop(): Promise<void>;
}

/**
 * `src/server/main.ts` in its own process (4 mail workers, no limits in the way) on a fresh
 * database of the bench's PostgreSQL, delivering to a loopback sink, with 8 Pro users.
 */
export async function startSendApp(ctx: BenchContext): Promise<SendApp> {
  const sink = await SmtpSink.start({ keepRaw: false });
  const pg = await ctx.postgres();
  const database = await pg.createDatabase();
  const app = await startChildServer('main', {
    DATABASE_URL: database.url,
    SMTP_URL: sink.url,
    MAIL_FROM: SEND_MAIL_FROM,
    MAIL_WORKERS: '4',
    PRO_MONTHLY_LIMIT: '10000000',
    PRO_SENDS_PER_MINUTE: '10000000',
  });
  const stop = async () => {
    await app.stop();
    await sink.stop();
    await database.drop();
  };
  let users: TestUser[];
  try {
    users = await Promise.all(Array.from({ length: 8 }, () => createUser(database.db, { plan: 'pro' })));
  } catch (err) {
    await stop();
    throw err;
  }
  const headersOf = (i: number) => ({
    ...users[i % users.length]!.headers,
    'content-type': 'application/json',
  });
  const sendAll = async (n: number, bodyOf: (i: number) => string) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < n) {
          const i = next++;
          const res = await fetch(`${app.url}/api/email/send`, {
            method: 'POST',
            headers: headersOf(i),
            body: bodyOf(i),
          });
          if (res.status !== 200) throw new Error(`send: ${res.status} ${await res.text()}`);
        }
      }),
    );
    await sink.waitForCount(n, 300_000);
  };
  const text = textFromHtml(SEND_HTML);
  const sendRaw = (n: number, tag: string) => {
    sink.clear();
    return rawSmtpRate({
      url: sink.url,
      mailFrom: SEND_MAIL_FROM,
      n,
      connections: 4,
      mail: (i) => ({
        to: ['client@example.com'],
        replyTo: users[0]!.user.email,
        subject: `Raw ${tag}-${i}`,
        html: SEND_HTML,
        text,
      }),
      messageId: (i) => `<raw-${tag}-${i}@proofmail.test>`,
    });
  };
  return { sink, database, app, users, headersOf, sendAll, sendRaw, stop };
}
