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
