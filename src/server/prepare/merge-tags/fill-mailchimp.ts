import type { FillOptions, Filled } from './filled.ts';
import { escapeHtml } from './escape-html.ts';

/**
 * Mailchimp's `*|TAG|*` merge tags: each tag whose name is a key of the sample data (exactly, or
 * in upper case, as Mailchimp writes them) becomes its value, HTML-escaped. Conditional and system
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
  const output = source.replace(TAG, (whole, name: string) => {
    const key = own(name) ? name : own(name.toUpperCase()) ? name.toUpperCase() : null;
    const value = key === null ? undefined : data[key];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      return escape ? escapeHtml(String(value)) : String(value);
    }
    unfilled.add(name);
    return whole;
  });
  return { output, unfilled: [...unfilled] };
}
