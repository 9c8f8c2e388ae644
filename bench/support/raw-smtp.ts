import nodemailer from 'nodemailer';
import { parseMailbox } from '../../src/server/mail/message.ts';

/**
 * The raw ceiling for mail: nodemailer's pooled transport sending `n` mails straight to an SMTP
 * server with `connections` connections, nothing else. Returns mails per second.
 */
export async function rawSmtpRate(options: {
  url: string;
  mailFrom: string;
  n: number;
  connections: number;
  mail: (i: number) => { to: string[]; replyTo?: string; subject: string; html: string; text?: string };
  messageId: (i: number) => string;
}): Promise<number> {
  const from = parseMailbox(options.mailFrom);
  const transporter = nodemailer.createTransport({
    pool: true,
    url: options.url,
    maxConnections: options.connections,
    maxMessages: 500,
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
  });
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: options.n }, (_, i) => {
        const m = options.mail(i);
        const to = m.to.map((address) => ({ name: '', address }));
        return transporter.sendMail({
          from,
          to,
          ...(m.replyTo ? { replyTo: { name: '', address: m.replyTo } } : {}),
          envelope: { from: from.address, to },
          subject: m.subject,
          messageId: options.messageId(i),
          text: m.text,
          html: m.html,
          xMailer: false,
        });
      }),
    );
    return options.n / ((performance.now() - started) / 1000);
  } finally {
    transporter.close();
  }
}
