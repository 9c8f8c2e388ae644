import type { EmailTemplate } from '../../../shared/contract/email.ts';
import { PrepareError } from '../prepare-error.ts';
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

/**
 * The most merge tags one text (the source, the subject, the text part) may have. Real emails have
 * tens to hundreds; one that repeats markup thousands of times does it with a loop over a list in
 * the sample data, which costs a tag per loop, not per item. The bound keeps a fill's time and
 * memory far inside a transform process's budget and heap: at this count the costliest fill
 * (Handlebars, which compiles a function per block) took 0.4 s and 60 MB on 2 busy cores
 * (docs/decisions/0115-merge-tags-same-bytes-and-bounded.md).
 */
export const MAX_MERGE_TAGS = 5_000;

/** How each syntax opens a tag: `{{` (and `{{{`, `{{#`…), Liquid's `{%` too, Mailchimp's `*|`. */
const TAG_OPENING = {
  handlebars: /\{\{/g,
  liquid: /\{[{%]/g,
  mailchimp: /\*\|/g,
} as const;

const LOOP = {
  handlebars: 'a loop over a list in the sample data ({{#each items}}…{{/each}})',
  liquid: 'a loop over a list in the sample data ({% for item in items %}…{% endfor %})',
  mailchimp: 'fewer tags: Mailchimp’s merge language has no loops',
} as const;

export function fillMergeTags(source: string, template: TemplateInput, options: FillOptions = {}): Filled {
  const { escape = true, lines = escape } = options;
  refuseTooManyTags(source, template.syntax, lines);
  switch (template.syntax) {
    case 'handlebars':
      return fillHandlebars(source, template.data, { escape, lines });
    case 'liquid':
      return fillLiquid(source, template.data, { escape, lines });
    case 'mailchimp':
      return fillMailchimp(source, template.data, { escape, lines });
  }
}

/**
 * Counts the tags before any engine reads them, and refuses more than `MAX_MERGE_TAGS` with the
 * count and the line of the first tag past the limit.
 */
function refuseTooManyTags(source: string, syntax: TemplateInput['syntax'], lines: boolean): void {
  const opening = TAG_OPENING[syntax];
  opening.lastIndex = 0;
  let count = 0;
  let over = -1;
  while (opening.exec(source) !== null) {
    count++;
    if (count === MAX_MERGE_TAGS + 1) over = opening.lastIndex;
  }
  if (count <= MAX_MERGE_TAGS) return;
  let line = 1;
  for (let i = source.indexOf('\n'); i !== -1 && i < over; i = source.indexOf('\n', i + 1)) line++;
  const message = `This template has ${count.toLocaleString('en-US')} merge tags; at most ${MAX_MERGE_TAGS.toLocaleString('en-US')} can be filled. To repeat markup, use ${LOOP[syntax]}.`;
  throw new PrepareError('template_too_large', lines ? `Line ${line}: ${message}` : message, [
    { line: lines ? line : 1, message },
  ]);
}
