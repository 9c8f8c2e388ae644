import { z } from 'zod';

/**
 * The pre-send checklist contract (docs/architecture.md §9): computed on the final message, answered
 * by `POST /api/email/preview`, stored with every sent email. Ids are stable: clients and scripts
 * key on them.
 */

export const CHECK_IDS = [
  'size',
  'compatibility',
  'links',
  'images',
  'accessibility',
  'content',
  'plain-text',
  'spam',
] as const;
export type CheckId = (typeof CHECK_IDS)[number];

export const findingSchema = z.object({
  severity: z.enum(['error', 'warning', 'info']),
  message: z.string(),
  /** What to do about it. */
  hint: z.string(),
  /** A short excerpt of the element concerned (e.g. `<img src="hero.png">`). */
  element: z.string().optional(),
  /** 1-based line in the HTML as sent. */
  line: z.number().int().optional(),
});
export type Finding = z.infer<typeof findingSchema>;

export const checkSchema = z.object({
  id: z.enum(CHECK_IDS),
  title: z.string(),
  status: z.enum(['pass', 'warning', 'error', 'skipped']),
  findings: z.array(findingSchema),
});
export type Check = z.infer<typeof checkSchema>;

/** A check's status from its findings: the worst severity wins; info alone is a pass. */
export function statusOf(findings: readonly Finding[]): Check['status'] {
  if (findings.some((f) => f.severity === 'error')) return 'error';
  if (findings.some((f) => f.severity === 'warning')) return 'warning';
  return 'pass';
}

/**
 * The email clients the compatibility check can score (each the latest version caniemail tested).
 * `outlook-windows` is classic Outlook for Windows (the Word engine, which reads `<!--[if mso]>`);
 * `outlook-windows-new` is the new Outlook for Windows.
 */
export const TARGET_CLIENTS = [
  { id: 'gmail-web', label: 'Gmail (web)' },
  { id: 'gmail-ios', label: 'Gmail (iOS)' },
  { id: 'gmail-android', label: 'Gmail (Android)' },
  { id: 'apple-mail-macos', label: 'Apple Mail (macOS)' },
  { id: 'apple-mail-ios', label: 'Apple Mail (iOS)' },
  { id: 'outlook-windows', label: 'Outlook (Windows, classic)' },
  { id: 'outlook-windows-new', label: 'Outlook (Windows, new)' },
  { id: 'outlook-com', label: 'Outlook.com' },
  { id: 'outlook-macos', label: 'Outlook (macOS)' },
  { id: 'outlook-ios', label: 'Outlook (iOS)' },
  { id: 'outlook-android', label: 'Outlook (Android)' },
  { id: 'yahoo-web', label: 'Yahoo Mail (web)' },
  { id: 'yahoo-ios', label: 'Yahoo Mail (iOS)' },
  { id: 'yahoo-android', label: 'Yahoo Mail (Android)' },
  { id: 'samsung-email', label: 'Samsung Email' },
  { id: 'aol-web', label: 'AOL (web)' },
  { id: 'thunderbird', label: 'Thunderbird' },
  { id: 'protonmail-web', label: 'Proton Mail (web)' },
  { id: 'fastmail-web', label: 'Fastmail (web)' },
] as const;
export type TargetClientId = (typeof TARGET_CLIENTS)[number]['id'];
export const TARGET_CLIENT_IDS = TARGET_CLIENTS.map((c) => c.id) as TargetClientId[];

/** Who a new account writes for: the clients most of a list reads in. */
export const DEFAULT_TARGET_CLIENTS: readonly TargetClientId[] = [
  'gmail-web',
  'gmail-ios',
  'gmail-android',
  'apple-mail-macos',
  'apple-mail-ios',
  'outlook-windows',
  'outlook-windows-new',
  'outlook-com',
  'yahoo-web',
  'samsung-email',
];

/**
 * GET and PUT /api/user/target-clients. Ids are checked by the server, so an unknown one gets a
 * 400 naming it (a zod enum would answer a generic message).
 */
export const targetClientsRequest = z.strictObject({
  targetClients: z
    .array(
      z
        .string()
        .max(100)
        .meta({ enum: [...TARGET_CLIENT_IDS] }),
    )
    .max(50)
    .meta({ minItems: 1, description: 'At least one; an id given twice counts once.' }),
});
export type TargetClientsRequest = z.infer<typeof targetClientsRequest>;
export const targetClientsResponse = z.object({
  targetClients: z.array(z.enum(TARGET_CLIENT_IDS as [TargetClientId, ...TargetClientId[]])),
});
export type TargetClientsResponse = z.infer<typeof targetClientsResponse>;
