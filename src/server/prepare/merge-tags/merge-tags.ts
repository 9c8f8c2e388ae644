import type { EmailTemplate } from '../../../shared/contract/email.ts';
import { fillHandlebars } from './fill-handlebars.ts';
import { fillLiquid } from './fill-liquid.ts';
import { fillMailchimp } from './fill-mailchimp.ts';
import type { FillOptions, Filled } from './filled.ts';

/**
 * Fills a source's merge tags with sample data (docs/decisions/0068-merge-tags-sandboxed.md): the
 * first step of the one door (src/server/prepare/prepare.ts), before MJML and inlining. Values are
 * HTML-escaped in every syntax. Runs only in a transform process, under its time budget.
 */

/** A syntax and its sample data, a JSON object (checked by the API: size and depth capped). */
export type TemplateInput = EmailTemplate;

export type { FillOptions, Filled } from './filled.ts';

export function fillMergeTags(source: string, template: TemplateInput, options?: FillOptions): Filled {
  switch (template.syntax) {
    case 'handlebars':
      return fillHandlebars(source, template.data, options);
    case 'liquid':
      return fillLiquid(source, template.data, options);
    case 'mailchimp':
      return fillMailchimp(source, template.data, options);
  }
}
