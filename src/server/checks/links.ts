import type { Check, Finding } from '../../shared/contract/checks.ts';
import { asciiAddress, isPlainAddress } from '../../shared/recipients.ts';
import { checkOf, type HtmlCheckContext } from './check-input.ts';
import { findingAt, mainElements, type El, type HtmlDoc } from './html-doc.ts';
import { hasMergeTag } from './merge-tags.ts';

/** A link of the email, for the static and the live check. */
export interface EmailLink {
  url: string;
  element: string;
  line: number;
}

/** The `<a href>` and `<area href>` every client but classic Outlook sees, in document order. */
export function linksOf(doc: HtmlDoc): { el: El; href: string }[] {
  return mainElements(doc)
    .filter((el) => (el.name === 'a' || el.name === 'area') && el.attrs.href !== undefined)
    .map((el) => ({ el, href: el.attrs.href!.trim() }));
}

/** The http(s) links, the ones a live check may follow. */
export function httpLinks(doc: HtmlDoc): EmailLink[] {
  return linksOf(doc)
    .filter(({ href }) => /^https?:\/\//i.test(href) && !hasMergeTag(href))
    .map(({ el, href }) => ({ url: href, ...findingAt(doc, el) }));
}

function mailtoProblem(href: string): string | null {
  const [target = ''] = href.slice('mailto:'.length).split('?');
  let decoded: string;
  try {
    decoded = decodeURIComponent(target);
  } catch {
    return 'its address is not valid URL encoding';
  }
  const addresses = decoded
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  if (addresses.length === 0) return 'it has no address';
  const bad = addresses.find((a) => !isPlainAddress(asciiAddress(a)));
  return bad ? `"${bad}" is not a valid email address` : null;
}

/**
 * A whole address in a sending service's own placeholder syntax, which only that service fills:
 * SendGrid's `<%asm_group_unsubscribe_raw_url%>` and `[Unsubscribe]`, Mailgun's `%unsubscribe_url%`,
 * Salesforce's `%%view_email_url%%`, a single-brace `{unsubscribe}`.
 */
const ESP_PLACEHOLDER = /^(?:<%[^%]+%>|\[[\w .:-]+\]|%%?[\w.:-]+%%?|\{[\w.:$-]+\})$/;

/** What is wrong with one link, as a finding without its place, or null. */
function linkProblem(href: string): Omit<Finding, 'element' | 'line'> | null {
  if (href === '')
    return {
      severity: 'error',
      message: 'A link has an empty href: it goes nowhere.',
      hint: 'Add the URL the link should open.',
    };
  if (href === '#')
    return {
      severity: 'error',
      message: 'A link points to "#": in an inbox it goes nowhere.',
      hint: 'Add the URL the link should open, or remove the link.',
    };
  if (hasMergeTag(href)) return null; // the content check reports unfilled tags
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(href)?.[1]?.toLowerCase();
  if (scheme === 'javascript')
    return {
      severity: 'error',
      message: 'A javascript: link: mail clients remove it or block the click.',
      hint: 'Link to a web page instead.',
    };
  if (scheme === 'mailto') {
    const problem = mailtoProblem(href);
    return problem
      ? {
          severity: 'error',
          message: `A mailto: link is broken: ${problem}.`,
          hint: 'Write it as mailto:name@example.com.',
        }
      : null;
  }
  if (href.startsWith('#')) return null; // an anchor in the email (compatibility reports support)
  if (!scheme && ESP_PLACEHOLDER.test(href))
    return {
      severity: 'error',
      message: `A link's address is a placeholder left unfilled ("${href.slice(0, 80)}"): sent as it is, it goes nowhere.`,
      hint: 'Put the real URL in, or write it as a merge tag and give it sample data.',
    };
  if (!scheme)
    return {
      severity: 'error',
      message: `A relative link ("${href.slice(0, 80)}"): there is no page for it to be relative to in an inbox.`,
      hint: 'Use the full URL, starting with https://.',
    };
  if (scheme === 'http' || scheme === 'https') {
    let url: URL;
    try {
      url = new URL(href);
    } catch {
      return {
        severity: 'error',
        message: `A malformed URL: "${href.slice(0, 80)}".`,
        hint: 'Check the URL for spaces, missing parts or stray characters.',
      };
    }
    // Two addresses run together (a base URL and an absolute link: MJML's navbar with `base-url`)
    // parse as one with a host like "mjml.iohttps".
    if (/^https?:\/\/[^/?#]*https?:/i.test(href))
      return {
        severity: 'error',
        message: `A link holds two addresses run together: "${href.slice(0, 80)}".`,
        hint: 'Keep one of them (an MJML navbar with base-url takes paths in its links, not full URLs).',
      };
    // A host is a name with a dot, localhost, or an IPv6 literal ([2001:db8::1]).
    if (
      /\s/.test(href) ||
      (!url.hostname.includes('.') && url.hostname !== 'localhost' && !url.hostname.startsWith('['))
    )
      return {
        severity: 'error',
        message: `A malformed URL: "${href.slice(0, 80)}".`,
        hint: 'Check the URL for spaces, missing parts or stray characters.',
      };
    if (scheme === 'http')
      return {
        severity: 'warning',
        message: 'A link uses http:, not https:.',
        hint: 'Use https://: some clients and browsers warn about insecure links.',
      };
  }
  return null;
}

/**
 * An `<a>` with no href at all that shows something (a label or an image): it looks like a link and
 * does nothing. An anchor target (`<a name="top">`, `<a id="…">`) is not one.
 */
function linkWithoutHref(el: El): boolean {
  if (
    el.name !== 'a' ||
    el.attrs.href !== undefined ||
    el.attrs.name !== undefined ||
    el.attrs.id !== undefined
  )
    return false;
  const shows = (node: El): boolean =>
    node.children.some((c) => (c.kind === 'text' ? c.text.trim() !== '' : c.name === 'img' || shows(c)));
  return shows(el);
}

export function checkLinks(ctx: HtmlCheckContext): Check {
  const findings: Finding[] = [];
  for (const { el, href } of linksOf(ctx.doc)) {
    const problem = linkProblem(href);
    if (problem) findings.push({ ...problem, ...findingAt(ctx.doc, el) });
  }
  for (const el of mainElements(ctx.doc))
    if (linkWithoutHref(el))
      findings.push({
        severity: 'warning',
        message: 'A link has no href: it looks like a link and cannot be clicked.',
        hint: 'Add the URL the link should open, or use a <span> for text that only looks like one.',
        ...findingAt(ctx.doc, el),
      });
  findings.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return checkOf('links', findings);
}
