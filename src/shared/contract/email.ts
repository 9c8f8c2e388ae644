import { z } from 'zod';
import { MAX_RECIPIENTS } from '../plans.ts';

/** Email API contract (docs/spec.md §3 Email, §5 send rules, §7 email calls). */

export const MAX_HTML_BYTES = 1024 * 1024;
export const MAX_SUBJECT_LENGTH = 998; // RFC 5322 line limit
export const DEFAULT_SUBJECT = 'Test Email';

/** The spec's messages (docs/spec.md §5), shared by the form and the server. */
export const SEND_MESSAGES = {
  missingTitle: 'Missing required fields',
  missingDetail: 'Please fill in recipient email and HTML content',
  tooManyTitle: 'Too many recipients',
  tooManyDetail: `Maximum ${MAX_RECIPIENTS} recipient email addresses allowed`,
  unverified: 'To send emails you must verify your email first.',
} as const;

export const sendEmailRequest = z.strictObject({
  to: z.string().max(2_000),
  subject: z.string().max(MAX_SUBJECT_LENGTH).optional().default(''),
  // The byte cap is checked by the server with a clear 413; this only bounds the parser.
  html: z.string().max(MAX_HTML_BYTES * 4),
  inlineCss: z.boolean().optional().default(false),
});
export type SendEmailRequest = z.input<typeof sendEmailRequest>;
export const sendEmailResponse = z.object({ id: z.string() });

export const DELIVERY_STATES = ['queued', 'sending', 'sent', 'retrying', 'failed'] as const;
export const delivery = z.object({
  state: z.enum(DELIVERY_STATES),
  attempts: z.number().int(),
  error: z.string().nullable(),
  sentAt: z.string().nullable(),
});

export const email = z.object({
  id: z.string(),
  to: z.string(),
  subject: z.string(),
  html: z.string(),
  createdAt: z.string(),
  isPublic: z.boolean(),
  publicSlug: z.string().nullable(),
  delivery,
});
export type Email = z.infer<typeof email>;

/** A history row: everything but the HTML, which only the detail view loads. */
export const emailSummary = email.pick({
  id: true,
  to: true,
  subject: true,
  createdAt: true,
  isPublic: true,
  publicSlug: true,
  delivery: true,
});
export type EmailSummary = z.infer<typeof emailSummary>;

export const listEmailsQuery = z.strictObject({
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional().default(20),
  q: z.string().max(200).optional().default(''),
});
export const emailListResponse = z.object({
  items: z.array(emailSummary),
  nextCursor: z.string().nullable(),
});
export type EmailListResponse = z.infer<typeof emailListResponse>;

export const emailIdParams = z.strictObject({ id: z.string().max(100) });
export const slugParams = z.strictObject({ slug: z.string().max(200) });

export const shareResponse = z.object({ publicUrl: z.string(), email });
export type ShareResponse = z.infer<typeof shareResponse>;
export const unshareResponse = z.object({ ok: z.literal(true), email });

export const publicEmail = z.object({
  id: z.string(),
  subject: z.string(),
  html: z.string(),
  createdAt: z.string(),
});
export type PublicEmail = z.infer<typeof publicEmail>;

export const usage = z.object({
  emailsThisMonth: z.number().int(),
  limit: z.number().int().nullable(),
  remaining: z.number().int().nullable(),
  totalEmails: z.number().int(),
  /** ISO time the monthly allowance starts over (first day of next month, UTC). */
  resetsAt: z.string(),
});
export type Usage = z.infer<typeof usage>;

/**
 * GET and DELETE /api/email/shared: the user's working public links, whatever the plan. Links made
 * while on Pro keep working on Free until the owner withdraws them
 * (docs/decisions/0036-public-links-after-pro.md).
 */
export const sharedLinksResponse = z.object({ count: z.number().int() });
export type SharedLinksResponse = z.infer<typeof sharedLinksResponse>;
export const withdrawSharedLinksResponse = z.object({ ok: z.literal(true), withdrawn: z.number().int() });
export type WithdrawSharedLinksResponse = z.infer<typeof withdrawSharedLinksResponse>;
