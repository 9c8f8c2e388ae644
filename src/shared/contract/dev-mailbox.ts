import { z } from 'zod';

/** The local mail catcher's mailbox (/dev/mailbox), loopback clients only. */

export const caughtMessage = z.object({
  id: z.string(),
  from: z.string(),
  to: z.array(z.string()),
  subject: z.string(),
  html: z.string().nullable(),
  text: z.string().nullable(),
  /** ISO 8601. */
  receivedAt: z.string(),
});
export type CaughtMessage = z.infer<typeof caughtMessage>;

export const caughtMessageDetail = caughtMessage.extend({
  messageId: z.string().nullable(),
  size: z.number().int().nonnegative(),
  headers: z.array(z.object({ name: z.string(), value: z.string() })),
});
export type CaughtMessageDetail = z.infer<typeof caughtMessageDetail>;

export const mailboxQuery = z
  .object({
    /** Only mail delivered to this address (case-insensitive). */
    to: z.string().max(320).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    /** `none`: each message's html and text are null (read one message for them); the page lists so. */
    bodies: z.enum(['none', 'all']).default('all'),
  })
  .strict();

export const mailboxResponse = z.object({ messages: z.array(caughtMessage) });
export type MailboxResponse = z.infer<typeof mailboxResponse>;

export const mailboxMessageParams = z.object({ id: z.string().max(64) }).strict();
export const mailboxMessageResponse = z.object({ message: caughtMessageDetail });
export type MailboxMessageResponse = z.infer<typeof mailboxMessageResponse>;

export const mailboxClearResponse = z.object({ deleted: z.number().int().nonnegative() });
export type MailboxClearResponse = z.infer<typeof mailboxClearResponse>;
