import { z } from 'zod';
import { MAX_RECIPIENTS } from '../plans.ts';
import { checkSchema } from './checks.ts';
import { UTF16_UNITS, whenAbsent } from './common.ts';
import { latestDecision, review, shareInfo } from './review.ts';

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

/** The languages a source may be written in: HTML, or MJML compiled by the server. */
export const SOURCE_FORMATS = ['html', 'mjml'] as const;
export type SourceFormat = (typeof SOURCE_FORMATS)[number];

/** Merge-tag syntaxes the server fills with sample data (none: the source is sent as written). */
export const TEMPLATE_SYNTAXES = ['handlebars', 'liquid', 'mailchimp'] as const;
export type TemplateSyntax = (typeof TEMPLATE_SYNTAXES)[number];
/** Caps of the sample data, checked with a clear 400 (UTF-8 bytes of its JSON; nesting levels). */
export const MAX_TEMPLATE_DATA_BYTES = 64 * 1024;
export const MAX_TEMPLATE_DATA_DEPTH = 16;

/**
 * Merge tags and the sample data that fills them. `data` is any JSON here; the server answers a
 * 400 naming the problem when it is not an object, too large or too deep.
 */
export const emailTemplate = z.strictObject({
  syntax: z.enum(TEMPLATE_SYNTAXES),
  data: z
    .unknown()
    .meta({
      type: 'object',
      description: `A JSON object: at most ${MAX_TEMPLATE_DATA_BYTES / 1024} KB of JSON and ${MAX_TEMPLATE_DATA_DEPTH} levels deep.`,
    })
    .optional(),
});
export type EmailTemplate = { syntax: TemplateSyntax; data: Record<string, unknown> };

/** The shape of an email's id; anything else in `parentId` is a 400 naming the field. */
/** Either case, spelt out: a pattern's flags do not reach the OpenAPI document. */
const EMAIL_ID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const MAX_TO_LENGTH = 2_000;
/** What a send left out of its required fields is answered like an empty one (spec §5). */
const MISSING_FIELDS = whenAbsent({
  message: `${SEND_MESSAGES.missingTitle}: ${SEND_MESSAGES.missingDetail}`,
  code: 'missing_fields',
});

const recipients = (what: string, absent?: typeof MISSING_FIELDS) =>
  z
    .string(absent)
    .max(MAX_TO_LENGTH)
    .meta({
      description: `Up to ${MAX_RECIPIENTS} plain addresses (name@example.com) separated by commas; blank entries are dropped. ${what}`,
    });

/**
 * The HTML and the text part: 1 MB of UTF-8, checked by the server with a clear 413
 * (`checkEmailInput` in src/server/features/email/email-input.ts). The schema only bounds the
 * parser, above that; the document states the real limit, which is bytes: 1,048,576 ASCII
 * characters fit, fewer of others.
 */
const mbOfUtf8 = (code: string, more = '', absent?: typeof MISSING_FIELDS) =>
  z
    .string(absent)
    .max(MAX_HTML_BYTES * 4)
    .meta({
      maxLength: MAX_HTML_BYTES,
      description:
        `At most 1 MB of UTF-8: ${MAX_HTML_BYTES.toLocaleString('en')} bytes, where a character outside ASCII ` +
        `takes 2 to 4; past it, 413 ${code}.${more}`,
    });

export const sendEmailRequest = z.strictObject({
  to: recipients('Required.', MISSING_FIELDS),
  subject: z
    .string()
    .max(MAX_SUBJECT_LENGTH)
    .meta({ description: `Empty: "${DEFAULT_SUBJECT}". The length is ${UTF16_UNITS}.` })
    .optional()
    .default(''),
  html: mbOfUtf8('html_too_large', '', MISSING_FIELDS),
  inlineCss: z.boolean().optional().default(false),
  /** The user's own plain-text part (same 1 MB cap); absent or blank: generated from the HTML. */
  text: mbOfUtf8('text_too_large', ' Absent or blank: generated from the HTML.').optional(),
  /** The language of `html`; MJML is compiled by the server. */
  format: z.enum(SOURCE_FORMATS).optional().default('html'),
  /** Merge tags in `html` and the sample data to fill them with; absent: none. */
  template: emailTemplate.optional(),
  /**
   * Any version of one of your emails: this send becomes the next version of its thread
   * (docs/decisions/0076-versions-are-rows-of-a-thread.md). Absent: a new email (version 1).
   */
  parentId: z.string().max(100).regex(EMAIL_ID, 'must be the id of an email you sent (a UUID)').optional(),
});
export type SendEmailRequest = z.input<typeof sendEmailRequest>;
export const sendEmailResponse = z.object({ id: z.string() });

/**
 * POST /api/email/preview: the send body with `to` optional. The answer is what a send of the same
 * body delivers (docs/architecture.md §9). `bytes.message` is the encoded MIME message for the
 * first recipient of `to` (without `to`: for the sender's own address); another recipient's differs
 * only by the length of their address.
 */
export const previewEmailRequest = sendEmailRequest.omit({ parentId: true }).extend({
  to: recipients('Optional: without it the message is measured for your own address.').optional().default(''),
  /** Also run the live link and image checks (requests to every link and image of the email). */
  live: z.boolean().optional().default(false),
});
export type PreviewEmailRequest = z.input<typeof previewEmailRequest>;
export const previewEmailResponse = z.object({
  html: z.string(),
  text: z.string(),
  subject: z.string(),
  bytes: z.object({ html: z.number().int(), source: z.number().int(), message: z.number().int() }),
  notes: z.object({
    inlined: z.boolean(),
    /** Rules inlining could not inline and kept in a <style> block. */
    keptInStyle: z.number().int(),
    /** Merge tags the sample data did not fill, as written. */
    unfilled: z.array(z.string()).optional(),
  }),
  /** The pre-send checklist of this message, one entry per check id (src/shared/contract/checks.ts). */
  checks: z.array(checkSchema),
});
export type PreviewEmailResponse = z.infer<typeof previewEmailResponse>;

/** 422 codes of a document the pipeline could not process (send and preview alike). */
export const PREPARE_ERROR_CODES = [
  'document_too_deep',
  'processing_timeout',
  'inline_failed',
  'mjml_invalid',
  'template_invalid',
  'template_not_allowed',
  'template_too_large',
  'subject_too_long',
  'processing_failed',
] as const;
export type PrepareErrorCode = (typeof PREPARE_ERROR_CODES)[number];

/**
 * The delivery of one message to one recipient. `unconfirmed`: the whole message was sent twice
 * and the server answered neither time; it may have arrived, and is not sent a third time.
 */
export const RECIPIENT_DELIVERY_STATES = [
  'queued',
  'sending',
  'sent',
  'retrying',
  'failed',
  'unconfirmed',
] as const;
export const recipientDelivery = z.object({
  id: z.string(),
  to: z.string(),
  state: z.enum(RECIPIENT_DELIVERY_STATES),
  attempts: z.number().int(),
  /** The server's reply or what went wrong, code included once ("550 5.1.1 …"). */
  error: z.string().nullable(),
  sentAt: z.string().nullable(),
  messageId: z.string(),
  /** This recipient may have received the message twice (an attempt's answer was lost after the whole message was sent). */
  uncertain: z.boolean(),
});
export type RecipientDelivery = z.infer<typeof recipientDelivery>;

/**
 * The roll-up of an email's deliveries: `sent` when every recipient's was, `failed` when every
 * one failed, `partial` when some failed and others were sent, `unconfirmed` when none failed but
 * some are unconfirmed; while any is under way, `retrying` if one waits for a retry, else
 * `sending` (or `queued` before the first attempt).
 */
export const DELIVERY_STATES = [
  'queued',
  'sending',
  'sent',
  'retrying',
  'failed',
  'partial',
  'unconfirmed',
] as const;
export const delivery = z.object({
  state: z.enum(DELIVERY_STATES),
  attempts: z.number().int(),
  error: z.string().nullable(),
  sentAt: z.string().nullable(),
  /** Some recipient may have received the message twice. */
  uncertain: z.boolean(),
});

export const messageHeader = z.object({ name: z.string(), value: z.string() });
export type MessageHeader = z.infer<typeof messageHeader>;

/** What the user wrote and chose, as it was when the email was sent. */
export const emailSource = z.object({
  format: z.enum(SOURCE_FORMATS),
  /** The source as written (HTML or MJML, with its merge tags; before inlining). */
  html: z.string(),
  /** The subject as written, with its merge tags (the subject sent is the email's `subject`). */
  subject: z.string(),
  /** The merge-tag syntax and sample data it was sent with; absent: none. */
  template: z
    .object({ syntax: z.enum(TEMPLATE_SYNTAXES), data: z.record(z.string(), z.unknown()) })
    .optional(),
  inlineCss: z.boolean(),
  /** The user's own text part, if they wrote one. */
  text: z.string().nullable(),
});

/** One version of a thread, as the detail lists them (newest first). */
export const emailVersion = z.object({
  id: z.string(),
  version: z.number().int(),
  subject: z.string(),
  createdAt: z.string(),
});
export type EmailVersion = z.infer<typeof emailVersion>;

export const email = z.object({
  id: z.string(),
  /** The id of the thread's first version: every version of this email shares it. */
  threadId: z.string(),
  /** 1, 2, 3… within the thread. */
  version: z.number().int(),
  to: z.string(),
  subject: z.string(),
  /** The HTML part as sent. */
  html: z.string(),
  createdAt: z.string(),
  isPublic: z.boolean(),
  publicSlug: z.string().nullable(),
  delivery,
  source: emailSource,
  /** The plain-text part as sent. */
  text: z.string(),
  /** The headers of the message as sent that every recipient got alike (not To, Message-ID, Date). */
  headers: z.array(messageHeader),
  bytes: z.object({ html: z.number().int(), message: z.number().int() }),
  /** One per recipient, in the order of `to`. */
  deliveries: z.array(recipientDelivery),
  /** The pre-send checklist as computed when it was sent; null for an email sent before checklists. */
  checks: z.array(checkSchema).nullable(),
  /** Every version of this email's thread that is not deleted, newest first (this one included). */
  versions: z.array(emailVersion),
  /** The thread's public link as its owner sees it; null when not shared. */
  share: shareInfo.nullable(),
  /** What reviewers said about the thread's versions, oldest first. */
  reviews: z.array(review),
});
export type Email = z.infer<typeof email>;

/**
 * A history row: one per thread, showing its latest version; everything but the HTML, which only
 * the detail view loads.
 */
export const emailSummary = email
  .pick({
    id: true,
    threadId: true,
    version: true,
    to: true,
    subject: true,
    createdAt: true,
    isPublic: true,
    publicSlug: true,
    delivery: true,
  })
  .extend({
    /** How many versions the thread has (not deleted); this row is the latest. */
    versionCount: z.number().int(),
    /**
     * In a search, when the row's latest version does not match but an older one does: the newest
     * version that matches. Null otherwise.
     */
    matched: z.object({ id: z.string(), version: z.number().int() }).nullable(),
    /** The thread's latest review decision (the history badge). */
    latestDecision: latestDecision.optional(),
  });
export type EmailSummary = z.infer<typeof emailSummary>;

export const listEmailsQuery = z.object({
  cursor: z
    .string()
    .max(200)
    .meta({
      description:
        'The `nextCursor` of the previous page, as it was given; anything else: 400 invalid_cursor.',
    })
    .optional(),
  limit: z.coerce.number().int().min(1).max(100).optional().default(20),
  q: z
    .string()
    .max(200)
    .meta({ description: 'Matches the recipients, the subject or the HTML of any version.' })
    .optional()
    .default(''),
});
export const emailListResponse = z.object({
  items: z.array(emailSummary),
  nextCursor: z.string().nullable(),
});
export type EmailListResponse = z.infer<typeof emailListResponse>;

export const emailIdParams = z.strictObject({ id: z.string().max(100) });
/** DELETE /api/email/{id}/versions: how many versions of the thread were deleted. */
export const deleteVersionsResponse = z.object({ ok: z.literal(true), deleted: z.number().int() });
export type DeleteVersionsResponse = z.infer<typeof deleteVersionsResponse>;
/** GET /api/email/{id}/message.eml: which delivery (recipient) to rebuild; default the first. */
export const messageQuery = z.object({ delivery: z.string().max(100).optional() });
export const slugParams = z.strictObject({ slug: z.string().max(200) });

export const shareResponse = z.object({ publicUrl: z.string(), email });
export type ShareResponse = z.infer<typeof shareResponse>;
export const unshareResponse = z.object({ ok: z.literal(true), email });

export const publicEmail = z.object({
  id: z.string(),
  subject: z.string(),
  html: z.string(),
  createdAt: z.string(),
  /** The version shown (the latest unless `?v=` asked for another). */
  version: z.number().int(),
  /** Every version of the thread, newest first. */
  versions: z.array(z.object({ version: z.number().int(), createdAt: z.string() })),
  /** What reviewers said, oldest first. */
  reviews: z.array(review),
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
