import { announcement } from './announcement.ts';
import { newsletter } from './newsletter.ts';
import { receipt } from './receipt.ts';
import type { StarterTemplate } from './starter-template.ts';

export type { StarterTemplate } from './starter-template.ts';

/** The composer's "Start from Template" choices: each in HTML and in MJML, written for Proofmail. */
export const STARTER_TEMPLATES: StarterTemplate[] = [...announcement, ...newsletter, ...receipt];
