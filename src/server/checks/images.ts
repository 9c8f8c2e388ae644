import type { Check, Finding } from '../../shared/contract/checks.ts';
import { checkOf, type HtmlCheckContext } from './check-input.ts';
import { MSO_CLIENT } from './clients.ts';
import { closest, findingAt, mainElements, styleValue, type El, type HtmlDoc } from './html-doc.ts';
import { hasMergeTag } from './merge-tags.ts';

/** An image of the email, for the static and the live check. */
export interface EmailImage {
  src: string;
  element: string;
  line: number;
}

export function imagesOf(doc: HtmlDoc): El[] {
  return mainElements(doc).filter((el) => el.name === 'img');
}

/** The http(s) images, the ones a live check may fetch. */
export function httpImages(doc: HtmlDoc): EmailImage[] {
  return imagesOf(doc)
    .map((el) => ({ el, src: (el.attrs.src ?? '').trim() }))
    .filter(({ src }) => /^https?:\/\//i.test(src) && !hasMergeTag(src))
    .map(({ el, src }) => ({ src, ...findingAt(doc, el) }));
}

/**
 * Whether classic Outlook, the client that sizes an image by its width attribute, is a target and
 * shows this image: not inside `<!--[if !mso]>` code, and not hidden from it by `mso-hide:all`.
 */
function classicOutlookShows(el: El, ctx: HtmlCheckContext): boolean {
  if (!ctx.targetClients.includes(MSO_CLIENT) || el.audience === 'not-outlook') return false;
  return closest(el, (e) => styleValue(e, 'mso-hide') === 'all') === null;
}

/** An image of at most 1×1 px by its attributes or its CSS: a tracking pixel, nothing to see. */
function isPixel(el: El): boolean {
  const tiny = (size: 'width' | 'height') => {
    const value = styleValue(el, size) ?? el.attrs[size];
    return value !== undefined && /^[01](?:px)?$/.test(value.trim());
  };
  return tiny('width') && tiny('height');
}

export function checkImages(ctx: HtmlCheckContext): Check {
  const findings: Finding[] = [];
  for (const el of imagesOf(ctx.doc)) {
    const at = findingAt(ctx.doc, el);
    const src = (el.attrs.src ?? '').trim();
    if (el.attrs.alt === undefined && isPixel(el))
      findings.push({
        severity: 'warning',
        message:
          'A 1×1 image (a tracking pixel) has no alt attribute: screen readers may read its file name.',
        hint: 'Add alt="" so that screen readers pass over it.',
        ...at,
      });
    else if (el.attrs.alt === undefined)
      findings.push({
        severity: 'error',
        message:
          'An image has no alt attribute: screen readers read its file name, and clients that block images show nothing.',
        hint: 'Describe the image in alt="…", or use alt="" for a decorative image.',
        ...at,
      });
    if (src === '')
      findings.push({
        severity: 'error',
        message: 'An image has no src.',
        hint: 'Add the image URL.',
        ...at,
      });
    else if (/^data:/i.test(src))
      findings.push({
        severity: 'error',
        message: 'An image is embedded as base64 data: Gmail and Outlook block it.',
        hint: 'Host the image and link it with an https:// URL.',
        ...at,
      });
    else if (/^http:/i.test(src))
      findings.push({
        severity: 'warning',
        message: 'An image loads over http:, not https:.',
        hint: 'Use https://: some clients block or warn about insecure images.',
        ...at,
      });
    else if (!/^(?:https?:|cid:)/i.test(src) && !hasMergeTag(src))
      findings.push({
        severity: 'error',
        message: `An image has a relative src ("${src.slice(0, 80)}"): it cannot load in an inbox.`,
        hint: 'Use the full URL, starting with https://.',
        ...at,
      });
    if (el.attrs.width === undefined && classicOutlookShows(el, ctx))
      findings.push({
        severity: 'warning',
        message: 'An image has no width attribute: classic Outlook shows it at its file size.',
        hint: 'Add width="…" (in pixels, without a unit) as well as any CSS width.',
        ...at,
      });
  }
  return checkOf('images', findings);
}
