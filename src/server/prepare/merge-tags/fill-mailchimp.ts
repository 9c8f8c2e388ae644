import type { FillOptions, Filled } from './filled.ts';
import { escapeHtml } from './escape-html.ts';
import { outputCounter } from './template-problem.ts';

/**
 * Mailchimp's `*|TAG|*` merge tags: each tag whose name is a key of the sample data (exactly, in
 * upper case as Mailchimp writes them, or else in any case: `fname` fills `*|FNAME|*`) becomes its
 * value, HTML-escaped. Conditional and system
 * tags (`*|IF:…|*`, `*|END:IF|*`, `*|MC:SUBJECT|*`, `*|UNSUB|*`…) are not evaluated: they stay as
 * written and are listed as unfilled, like any tag the data does not fill.
 */
const TAG = /\*\|([^|*\s]{1,100})\|\*/g;

export function fillMailchimp(
  source: string,
  data: Record<string, unknown>,
  { escape = true }: FillOptions = {},
): Filled {
  const unfilled = new Set<string>();
  const own = (key: string) => Object.prototype.hasOwnProperty.call(data, key);
  const byCase = new Map<string, string>();
  for (const key of Object.keys(data).reverse()) byCase.set(key.toUpperCase(), key);
  // Every tag may repeat a long value: past the size limit there is no point building the rest.
  const count = outputCounter();
  count(source.length);
  const output = source.replace(TAG, (whole, name: string) => {
    const upper = name.toUpperCase();
    const key = own(name) ? name : own(upper) ? upper : (byCase.get(upper) ?? null);
    const value = key === null ? undefined : data[key];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      const filled = escape ? escapeHtml(String(value)) : String(value);
      count(filled.length - whole.length);
      return filled;
    }
    unfilled.add(name);
    return whole;
  });
  return { output, unfilled: [...unfilled] };
}
