import type { Check, Finding, TargetClientId } from '../../shared/contract/checks.ts';
import { TARGET_CLIENTS } from '../../shared/contract/checks.ts';
import caniemail from './caniemail-data.json' with { type: 'json' };
import { checkOf, type HtmlCheckContext } from './check-input.ts';
import { hidingStyle, isHidden } from './computed.ts';
import { boxSizingOfElements, boxSizingRules } from './box-sizing-rule.ts';
import { sheetBoxes } from './sheet-boxes.ts';
import { sizeLimits } from './size-limit-rule.ts';
import { CANIEMAIL_KEYS, MSO_CLIENT } from './clients.ts';
import { overriddenMediaRules } from './media-overrides.ts';
import { noteText, notesConcerning, partialConcerns, type UseDetail } from './compat-notes.ts';
import { INTERACTIVE_STATES, isWebFontSheet, lastValue, scanCss, type Declaration } from './css-scan.ts';
import type { Audience, El } from './html-doc.ts';
import {
  fixedWidthImage,
  isSizeLimit,
  limitHeldBySize,
  ROOT_ELEMENTS,
  setsBack,
  windowHoldsLimit,
} from './same-where-ignored.ts';
import { latestVersion } from './versions.ts';

/**
 * Client compatibility from the vendored caniemail data (docs/decisions/0063-pre-send-checklist.md,
 * 0064-vendored-caniemail-data.md). A feature is reported only where the email uses it: on an
 * element (its tag, attributes, inline style) or in a `<style>` block. Each target client is scored
 * on the latest version caniemail tested. Unsupported ('n') is an error, partial ('a') a warning,
 * except where the email carries the standard fallback or the feature only enhances (below): then
 * it is at most an info.
 */

interface FeatureData {
  title: string;
  url: string;
  notes: Record<string, string>;
  stats: Record<string, Record<string, Record<string, string>>>;
}
const FEATURES = (caniemail as { features: Record<string, FeatureData> }).features;
export const CANIEMAIL_SOURCE = (caniemail as { source: { version: string; lastUpdate: string } }).source;
export const CANIEMAIL_SNAPSHOT = (caniemail as { snapshotDate: string }).snapshotDate;

/**
 * Features whose absence degrades gracefully: the email still reads right without them (square
 * corners, no shadow, no hover effect, the desktop layout, the fallback font, no dark-mode tweak,
 * text that can be selected, form controls in their default colour).
 */
const ENHANCEMENTS = new Set([
  'css-border-radius',
  'css-box-shadow',
  'css-text-shadow',
  'css-transition',
  'css-animation',
  'css-at-keyframes',
  'css-at-media',
  'css-at-media-prefers-color-scheme',
  'css-at-media-prefers-reduced-motion',
  'css-at-media-hover',
  'css-at-media-orientation',
  'css-at-media-device-pixel-ratio',
  'css-at-font-face',
  'css-at-supports',
  'css-pseudo-class-hover',
  'css-pseudo-class-focus',
  'css-pseudo-class-active',
  'css-pseudo-class-visited',
  'css-color-scheme',
  'html-meta-color-scheme',
  'html-srcset',
  'html-anchor-links',
  'css-text-decoration-thickness',
  'css-text-underline-offset',
  'css-letter-spacing',
  'css-hyphens',
  'css-user-select',
  'css-accent-color',
]);

/** Properties that only tune a background image: where the image falls back, so do they. */
const BACKGROUND_COMPANIONS = new Set([
  'css-background-size',
  'css-background-position',
  'css-background-repeat',
  'css-background-clip',
  'css-background-origin',
]);

/**
 * The hybrid layout's sizing: columns sized by min-width and max-width for every client, by an mso
 * ghost table's cells for classic Outlook, which ignores both.
 */
const GHOST_TABLE_SIZING = new Set(['css-max-width', 'css-min-width']);

/**
 * Selectors written to match in one client only, so that a rule of them is that client's
 * enhancement and nobody else's: Gmail's `u + .body` and `u ~ div` (Gmail puts a `<u>` before the
 * body it shows; also after an ancestor, `div > u + .body`), Outlook.com's dark-mode attributes
 * (`[data-ogsc]`, `[data-ogsb]`), `[owa]`, `[data-outlook-cycle]`, `.ExternalClass` and the `x_`
 * prefix it gives every class (`[class~="x_g"]`), `#MessageViewBody` and `#MessageWebViewDiv` (the
 * wrappers Samsung Email and Apple Mail put around a message), Apple's `[x-apple-data-detectors]`.
 */
const CLIENT_TARGETING =
  /(?:^|[\s>+~])u\s*[+~]|\[data-og[sa][cb]\]|\[owa\]|\[data-outlook-cycle\]|\.ExternalClass\b|#MessageViewBody\b|#MessageWebViewDiv\b|\[x-apple-data-detectors\]|\[class[~*^|]?=\s*["']?x_/i;

/**
 * A use of a feature: where, who sees it, whether the standard fallback is there, and what the
 * notes on partial support may ask of it (the declaration, the at-rule's prelude, the selectors).
 */
interface Use extends UseDetail {
  slug: string;
  audience: Audience;
  /** Where it is written: the element, or null inside a `<style>` block; and the offset. */
  el: El | null;
  offset: number;
  /** The clients for which the email carries a fallback (all of them: `'*'`). */
  fallback: Set<TargetClientId | '*'>;
  /** The selectors of the `<style>` rule a declaration is in (for the hint `fixFor` gives). */
  rule?: readonly string[];
}

const PROPERTY_SLUGS: Record<string, string> = {
  position: 'css-position',
  transform: 'css-transform',
  animation: 'css-animation',
  'animation-name': 'css-animation',
  transition: 'css-transition',
  'box-shadow': 'css-box-shadow',
  'text-shadow': 'css-text-shadow',
  opacity: 'css-opacity',
  filter: 'css-filter',
  'backdrop-filter': 'css-backdrop-filter',
  'mix-blend-mode': 'css-mix-blend-mode',
  'background-blend-mode': 'css-background-blend-mode',
  'clip-path': 'css-clip-path',
  'mask-image': 'css-mask-image',
  'object-fit': 'css-object-fit',
  'object-position': 'css-object-position',
  'aspect-ratio': 'css-aspect-ratio',
  gap: 'css-gap',
  'row-gap': 'css-gap',
  'column-gap': 'css-gap',
  'flex-direction': 'css-flex-direction',
  'flex-wrap': 'css-flex-wrap',
  'justify-content': 'css-justify-content',
  'align-items': 'css-align-items',
  'grid-template-columns': 'css-grid-template',
  'grid-template-rows': 'css-grid-template',
  'grid-template-areas': 'css-grid-template',
  'background-size': 'css-background-size',
  'background-position': 'css-background-position',
  'background-repeat': 'css-background-repeat',
  'background-clip': 'css-background-clip',
  'background-origin': 'css-background-origin',
  'border-radius': 'css-border-radius',
  'border-image': 'css-border-image',
  'max-width': 'css-max-width',
  'min-width': 'css-min-width',
  'max-height': 'css-max-height',
  'min-height': 'css-min-height',
  'z-index': 'css-z-index',
  inset: 'css-inset',
  'text-overflow': 'css-text-overflow',
  'writing-mode': 'css-writing-mode',
  'column-count': 'css-column-count',
  'box-sizing': 'css-box-sizing',
  'list-style-image': 'css-list-style-image',
  'user-select': 'css-user-select',
  resize: 'css-resize',
  'shape-outside': 'css-shape-outside',
  'text-underline-offset': 'css-text-underline-offset',
  'text-decoration-thickness': 'css-text-decoration-thickness',
  hyphens: 'css-hyphens',
  'color-scheme': 'css-color-scheme',
  'accent-color': 'css-accent-color',
  'scroll-snap-type': 'css-scroll-snap',
  'inline-size': 'css-inline-size',
  'block-size': 'css-block-inline-size',
  'margin-inline': 'css-margin-inline-block',
  'margin-block': 'css-margin-inline-block',
  'padding-inline': 'css-padding-inline-block',
  'padding-block': 'css-padding-inline-block',
  'margin-inline-start': 'css-margin-inline-start-end',
  'margin-inline-end': 'css-margin-inline-start-end',
  'padding-inline-start': 'css-padding-inline-start-end',
  'padding-inline-end': 'css-padding-inline-start-end',
};

const VALUE_SLUGS: [RegExp, string][] = [
  [/\bvar\(/, 'css-variables'],
  [/\bcalc\(/, 'css-unit-calc'],
  [/\bclamp\(/, 'css-function-clamp'],
  [/\bmin\(/, 'css-function-min'],
  [/\bmax\(/, 'css-function-max'],
  [/\blight-dark\(/, 'css-function-light-dark'],
  [/\blinear-gradient\(/, 'css-linear-gradient'],
  [/\bradial-gradient\(/, 'css-radial-gradient'],
  [/\bconic-gradient\(/, 'css-conic-gradient'],
  [/\b(?:oklch|oklab|lab|lch|color-mix|hwb)\(/, 'css-modern-color'],
  [/(?:^|[\s(,])-?[\d.]+rem\b/, 'css-unit-rem'],
  [/(?:^|[\s(,])-?[\d.]+vh\b/, 'css-unit-vh'],
  [/(?:^|[\s(,])-?[\d.]+vw\b/, 'css-unit-vw'],
];

/** What every pattern of VALUE_SLUGS needs: an opening parenthesis or one of the units. */
const MAY_HAVE_VALUE_SLUG = /\(|rem|vh|vw/;

const POSITION_SIDES = new Set(['left', 'right', 'top', 'bottom']);

const IMAGE_FORMATS: [RegExp, string][] = [
  [/\.webp(?:[?#]|$)/i, 'image-webp'],
  [/\.avif(?:[?#]|$)/i, 'image-avif'],
  [/\.svg(?:[?#]|$)/i, 'image-svg'],
  [/\.bmp(?:[?#]|$)/i, 'image-bmp'],
  [/\.tiff?(?:[?#]|$)/i, 'image-tiff'],
  [/\.(?:heic|heif)(?:[?#]|$)/i, 'image-heif'],
];

const ELEMENT_SLUGS: Record<string, string> = {
  svg: 'html-svg',
  picture: 'html-picture',
  dialog: 'html-dialog',
  marquee: 'html-marquee',
  meter: 'html-meter',
  progress: 'html-progress',
  map: 'html-image-maps',
};

const hasColour = (value: string) =>
  /#[0-9a-f]{3,8}\b|\brgba?\(|\bhsla?\(|\b(?:white|black|red|blue|green|gray|grey|silver|navy|orange|yellow|purple|teal|maroon)\b/.test(
    value,
  );

/** What a declaration uses, as caniemail slugs. */
function declarationSlugs(d: Declaration): string[] {
  const slugs: string[] = [];
  if (setsBack(d)) return slugs;
  const bySide = PROPERTY_SLUGS[d.property];
  if (bySide) slugs.push(bySide);
  if (POSITION_SIDES.has(d.property)) slugs.push('css-left-right-top-bottom');
  if (d.property === 'display') {
    if (/\b(?:inline-)?flex\b/.test(d.value)) slugs.push('css-display-flex');
    if (/\b(?:inline-)?grid\b/.test(d.value)) slugs.push('css-display-grid');
  }
  if (d.property === 'background-image' && /url\(/.test(d.value)) slugs.push('css-background-image');
  if (d.property === 'background' && /url\(/.test(d.value)) slugs.push('css-background-image');
  // Every value feature is a function or one of three units: most values have neither.
  if (MAY_HAVE_VALUE_SLUG.test(d.value))
    for (const [re, slug] of VALUE_SLUGS) if (re.test(d.value)) slugs.push(slug);
  return slugs;
}

/** Whether an `<img>` is inside the element, at any depth (`<picture>`'s fallback). */
function holdsImage(el: El): boolean {
  return el.children.some((c) => c.kind === 'element' && (c.name === 'img' || holdsImage(c)));
}

/** The background fallback idiom: a colour beside the image (bgcolor, background-color, shorthand). */
function hasBackgroundColour(el: El): boolean {
  if (el.attrs.bgcolor) return true;
  return el.style.some(
    (d) =>
      d.property === 'background-color' ||
      (d.property === 'background' && hasColour(d.value.replace(/url\([^)]*\)/g, ''))),
  );
}

function collectUses(ctx: HtmlCheckContext): Use[] {
  const { doc } = ctx;
  const uses: Use[] = [];
  const hasVml = doc.elements.some((el) => el.audience === 'outlook' && el.name.startsWith('v:'));
  const ghostTables = doc.elements.some((el) => el.audience === 'outlook' && el.name === 'table');
  const sheets = doc.styles.map((block) => ({ block, ...scanCss(block.css) }));
  const allRules = sheets.flatMap((sheet) => sheet.rules);
  // `position: relative` without offsets (reported as their own feature) only anchors what is
  // positioned absolutely inside it: where nothing is, a client that ignores it lays out the same.
  const absolute = (d: Declaration) => d.property === 'position' && /\babsolute\b/.test(d.value);
  const anchors =
    doc.elements.some((el) => !el.name.includes(':') && el.style.some(absolute)) ||
    allRules.some((rule) => rule.declarations.some(absolute));
  const noUse = (d: Declaration, slug: string) =>
    slug === 'css-position' && d.value === 'relative' && !anchors;
  // What the sheets give the elements judged, matched when a judge first asks about one.
  const boxes = sheetBoxes(allRules, doc);
  const limits = sizeLimits(boxes);
  const boxSizingOf = boxSizingOfElements(boxes);

  const add = (
    slug: string,
    el: El | null,
    audience: Audience,
    offset: number,
    fallback: Use['fallback'],
    detail: Omit<UseDetail, 'el'> = {},
    rule?: readonly string[],
  ) => {
    uses.push({ slug, audience, el, offset, fallback, ...detail, ...(rule && { rule }) });
  };

  for (const el of doc.elements) {
    // What a reader never sees cannot break: the preheader and other hidden blocks (their hiding
    // idiom, display:none with mso-hide:all and max-height:0, is itself the fallback).
    if (isHidden(el)) continue;
    const fallbacks = (slug: string): Use['fallback'] => {
      const f = new Set<TargetClientId | '*'>();
      if (slug === 'css-background-image' || slug === 'html-background' || BACKGROUND_COMPANIONS.has(slug)) {
        if (hasBackgroundColour(el)) f.add('*');
        if (hasVml) f.add(MSO_CLIENT);
      }
      if (/gradient/.test(slug) && hasBackgroundColour(el)) f.add('*');
      if (GHOST_TABLE_SIZING.has(slug) && ghostTables) f.add(MSO_CLIENT);
      // The fluid image: classic Outlook sizes an image by its width attribute and ignores the
      // CSS that lets it shrink elsewhere.
      if (slug === 'css-max-width' && el.name === 'img' && el.attrs.width) f.add(MSO_CLIENT);
      // `<picture>`'s own `<img>` is what a client that drops the element shows (Gmail replaces
      // `<picture>` and `<source>` by `<u>` and keeps it), as `srcset` falls back to `src`.
      if (slug === 'html-picture' && holdsImage(el)) f.add('*');
      if (limitHeldBySize(el, slug)) f.add('*');
      else if (isSizeLimit(slug)) for (const c of limits.element(el, slug)) f.add(c);
      if (slug === 'css-display-flex' || slug === 'css-display-grid') {
        // Blocks that stack when flex or grid is ignored, with a ghost table for Outlook.
        if (ghostTables) f.add(MSO_CLIENT);
      }
      return f;
    };
    const elSlug = ELEMENT_SLUGS[el.name];
    if (elSlug) add(elSlug, el, el.audience, el.start, fallbacks(elSlug));
    if (el.attrs.background !== undefined && el.name !== 'v:fill')
      add('html-background', el, el.audience, el.start, fallbacks('html-background'));
    if (el.name === 'img' && el.attrs.srcset) add('html-srcset', el, el.audience, el.start, new Set());
    if (el.name === 'a' && el.attrs.href?.startsWith('#') && el.attrs.href.length > 1)
      add('html-anchor-links', el, el.audience, el.start, new Set());
    if (el.name === 'img' && el.attrs.src && !el.attrs.src.startsWith('data:')) {
      for (const [re, slug] of IMAGE_FORMATS)
        if (re.test(el.attrs.src)) add(slug, el, el.audience, el.start, new Set());
    }
    // A VML shape's (`v:image`, `v:rect`) style is VML's own, read by classic Outlook's VML
    // renderer: its `position`, `top` and `z-index` lay the shape out, as they are meant to.
    const vml = el.name.includes(':');
    for (const { d, slug, fallsBack } of featureUses(vml ? [] : el.style)) {
      // Judged as a `<style>` rule's is, with the sizes the sheets give the element: the same
      // email inlined or not gets the same verdict.
      const audience = slug === 'css-box-sizing' ? narrower(el.audience, boxSizingOf(el)) : el.audience;
      if (!audience || noUse(d, slug)) continue;
      const f = fallbacks(slug);
      if (fallsBack) f.add('*');
      add(slug, el, audience, el.start, f, d);
    }
  }

  let fixed: boolean | undefined;
  const imagesFixed = () => (fixed ??= doc.elements.every((el) => el.name !== 'img' || fixedWidthImage(el)));

  const boxSizingOfRule = boxSizingRules(boxes);
  for (const { block, rules, atRules } of sheets) {
    for (const at of atRules) {
      const slug = atRuleSlug(at.name, at.prelude);
      const fallback = new Set<TargetClientId | '*'>();
      if (slug === 'css-at-import' && isWebFontSheet(at.prelude)) fallback.add('*');
      const nested = at.within.some((outer) => /^@media\b/i.test(outer));
      if (slug)
        add(slug, null, block.audience, block.start + at.offset, fallback, { value: at.prelude, nested });
    }
    for (const rule of rules) {
      // Inside a media query a declaration only applies where media queries work: the query is
      // the feature, reported above as the enhancement it is.
      if (rule.atRules.length > 0) continue;
      const states = rule.selectors.join(', ').match(INTERACTIVE_STATES) ?? [];
      for (const pseudo of states)
        add(
          `css-pseudo-class-${pseudo.slice(1)}`,
          null,
          block.audience,
          block.start + rule.offset,
          new Set(),
          { selectors: rule.selectors.filter((sel) => sel.includes(pseudo)) },
        );
      // A rule only for interaction or for a client-targeting hack is the enhancement itself.
      if (states.length > 0 || rule.selectors.every((sel) => CLIENT_TARGETING.test(sel.trim()))) continue;
      // A rule that hides what it selects (a preheader's class): as for a hidden element above,
      // its other declarations are the hiding idiom, each the others' fallback.
      if (hidingStyle((property) => lastValue(rule.declarations, property))) continue;
      for (const { d, slug, fallsBack } of featureUses(rule.declarations)) {
        if (noUse(d, slug)) continue;
        const f = new Set<TargetClientId | '*'>();
        if (fallsBack) f.add('*');
        if (GHOST_TABLE_SIZING.has(slug) && ghostTables) f.add(MSO_CLIENT);
        if (rule.selectors.every((sel) => ROOT_ELEMENTS.has(sel.trim())) && windowHoldsLimit(slug, d.value))
          f.add('*');
        // `img { max-width: … }`, the reset: where every image has a fixed width, it holds.
        if (slug === 'css-max-width' && rule.selectors.every((sel) => sel.trim() === 'img') && imagesFixed())
          f.add('*');
        if (isSizeLimit(slug) && !f.has('*')) {
          const held = limits.rule(rule, d, slug);
          if (held === null) continue;
          for (const c of held) f.add(c);
        }
        let audience: Audience | undefined = block.audience;
        if (slug === 'css-box-sizing') audience = narrower(audience, boxSizingOfRule(rule));
        if (audience) add(slug, null, audience, block.start + rule.offset, f, d, rule.selectors);
      }
    }
  }
  return uses;
}

/**
 * The features a block of declarations uses, in order, each with whether it carries the CSS
 * fallback idiom: an earlier declaration of the same property in the block that does not use the
 * feature (`font-size: 16px; font-size: max(16px, 1rem)`, `display: block; display: flex`). A
 * client that does not understand the later one drops it and keeps the earlier. Counted as it goes
 * (how many declarations of the property, and how many of them use the feature), so a block of
 * thousands of declarations is one pass.
 */
function* featureUses(
  block: readonly Declaration[],
): Generator<{ d: Declaration; slug: string; fallsBack: boolean }> {
  const seen = new Map<string, number>();
  const count = (key: string) => seen.get(key) ?? 0;
  for (const d of block) {
    const slugs = declarationSlugs(d);
    const before = count(d.property);
    for (const slug of slugs) yield { d, slug, fallsBack: before > count(`${d.property} ${slug}`) };
    seen.set(d.property, before + 1);
    for (const slug of slugs) seen.set(`${d.property} ${slug}`, count(`${d.property} ${slug}`) + 1);
    // The shorthand's size (`background: url(…) center / cover`) is a background-size the clients
    // that drop the longhand keep: caniemail's own advice for Gmail, and what MJML writes.
    if (d.property === 'background' && d.value.replace(/url\([^)]*\)/g, '').includes('/'))
      seen.set('background-size', count('background-size') + 1);
  }
}

/** Who sees both: an audience within another, or nobody. */
function narrower(a: Audience, b: Audience | undefined): Audience | undefined {
  if (b === undefined) return undefined;
  if (b === 'all' || a === b) return a;
  return a === 'all' ? b : undefined;
}

function atRuleSlug(name: string, prelude: string): string | undefined {
  switch (name) {
    case 'media':
      if (/prefers-color-scheme/.test(prelude)) return 'css-at-media-prefers-color-scheme';
      if (/prefers-reduced-motion/.test(prelude)) return 'css-at-media-prefers-reduced-motion';
      return 'css-at-media';
    case 'font-face':
      return 'css-at-font-face';
    case 'import':
      return 'css-at-import';
    case 'keyframes':
      return 'css-at-keyframes';
    case 'supports':
      return 'css-at-supports';
    default:
      return undefined;
  }
}

/** The support of a feature in a client's latest tested version: 'y', 'n', 'a', 'u', with note numbers. */
export function supportIn(
  slug: string,
  client: TargetClientId,
): { support: string; notes: string[] } | undefined {
  const feature = FEATURES[slug];
  const [family, platform] = CANIEMAIL_KEYS[client];
  const results = feature?.stats[family]?.[platform];
  if (!feature || !results) return undefined;
  const latest = latestVersion(Object.keys(results));
  if (latest === undefined) return undefined;
  const value = results[latest]!;
  const notes = [...value.matchAll(/#(\d+)/g)]
    .map((m) => feature.notes[m[1]!])
    .filter((n): n is string => !!n);
  return { support: value.trim()[0]!, notes };
}

const LABELS = new Map<string, string>(TARGET_CLIENTS.map((c) => [c.id, c.label]));
const names = (clients: TargetClientId[]) => clients.map((c) => LABELS.get(c) ?? c).join(', ');

/**
 * The sentence of a partial-support warning: with one note for every client, the clients and the
 * note; with different notes, each group of clients followed by its own note, the clients named
 * once ("position is only partly supported. Apple Mail (macOS): Supports relative, … Outlook.com:
 * Supports sticky, …").
 */
function partlySupported(
  title: string,
  clients: TargetClientId[],
  notes: Map<TargetClientId, string>,
): string {
  const byNote = new Map<string, TargetClientId[]>();
  for (const client of clients) {
    const note = notes.get(client) ?? '';
    byNote.set(note, [...(byNote.get(note) ?? []), client]);
  }
  if (byNote.size === 1) {
    const [note] = byNote.keys();
    return `${title} is only partly supported in ${names(clients)}.${note ? ` ${note}` : ''}`;
  }
  const groups = [...byNote].map(([note, group]) => `${names(group)}: ${note || 'No details given.'}`);
  return `${title} is only partly supported. ${groups.join(' ')}`;
}

/**
 * The usual fix, where one is known for the use named: an image's `max-width`, which classic
 * Outlook ignores and sizes the image by its width attribute instead (the fallback the check
 * already takes), in its style or in an `img` rule of a style sheet.
 */
function fixFor(slug: string, use: Use | undefined, clients: readonly TargetClientId[]): string | undefined {
  if (slug !== 'css-max-width' || !use || !clients.includes(MSO_CLIENT)) return undefined;
  if (use.el?.name === 'img')
    return 'Classic Outlook shows this image at its file\'s width: give it a width attribute in pixels (width="600").';
  if (!use.el && use.rule?.some((selector) => /(?:^|[\s>+~])img(?![\w-])[^\s>+~]*$/i.test(selector.trim())))
    return 'Classic Outlook shows images at their files\' width: give each image a width attribute in pixels (width="600").';
  return undefined;
}

export function checkCompatibility(ctx: HtmlCheckContext): Check {
  const uses = collectUses(ctx);
  const bySlug = new Map<string, Use[]>();
  for (const use of uses) {
    const list = bySlug.get(use.slug);
    if (list) list.push(use);
    else bySlug.set(use.slug, [use]);
  }

  const findings: Finding[] = [];
  for (const [slug, slugUses] of bySlug) {
    const feature = FEATURES[slug];
    if (!feature) continue;
    // The use a finding names: the first that counts for it. A table's max-width works in classic
    // Outlook, so a later <div>'s is the one to look at; a use with its fallback is named by the
    // info, the first one without by the error or warning.
    let problem: Use | undefined;
    let mitigatedUse: Use | undefined;
    const earlier = (a: Use | undefined, b: Use) => (!a || slugUses.indexOf(b) < slugUses.indexOf(a) ? b : a);
    const seenBy = (client: TargetClientId) =>
      slugUses.filter((u) =>
        client === MSO_CLIENT ? u.audience !== 'not-outlook' : u.audience !== 'outlook',
      );
    const broken: TargetClientId[] = [];
    const partial: TargetClientId[] = [];
    const mitigated: TargetClientId[] = [];
    /** Each partly supporting client's notes on the use named, as the finding quotes them. */
    const partialNotes = new Map<TargetClientId, string>();
    for (const client of ctx.targetClients) {
      const seen = seenBy(client);
      if (seen.length === 0) continue;
      const support = supportIn(slug, client);
      if (!support || support.support === 'y' || support.support === 'u') continue;
      // A note may say which uses the partial support is about (a table's max-width works in
      // classic Outlook, a relative position in Apple Mail): the others work there.
      const unmet = support.support === 'a' ? seen.filter((u) => partialConcerns(support.notes, u)) : seen;
      if (unmet.length === 0) continue;
      const uncovered = unmet.find((u) => !u.fallback.has('*') && !u.fallback.has(client));
      if (!uncovered || ENHANCEMENTS.has(slug)) {
        mitigated.push(client);
        mitigatedUse = earlier(mitigatedUse, unmet[0]!);
        continue;
      }
      problem = earlier(problem, uncovered);
      if (support.support === 'n') broken.push(client);
      else {
        partial.push(client);
        const notes = notesConcerning(support.notes, uncovered).map(noteText).filter(Boolean);
        partialNotes.set(client, notes.join(' '));
      }
    }
    // Only one use is named: its line and excerpt are made for it alone.
    const at = (use: Use | undefined) =>
      use && {
        line: ctx.doc.line(use.offset),
        ...(use.el && { element: ctx.doc.excerpt(use.el) }),
      };
    const see = `See ${feature.url}`;
    if (broken.length > 0) {
      findings.push({
        severity: 'error',
        message: `${feature.title} is not supported in ${names(broken)}.`,
        hint: `Use a widely supported alternative or add a fallback for these clients. ${see}`,
        ...at(problem),
      });
    }
    if (partial.length > 0) {
      findings.push({
        severity: 'warning',
        message: partlySupported(feature.title, partial, partialNotes),
        hint: `${fixFor(slug, problem, [...broken, ...partial]) ?? 'Test it in these clients, or use a widely supported alternative.'} ${see}`,
        ...at(problem),
      });
    }
    if (mitigated.length > 0) {
      findings.push({
        severity: 'info',
        message: `${feature.title} is not fully supported in ${names(mitigated)}; the email degrades gracefully or carries a fallback there.`,
        hint: see,
        ...at(mitigatedUse),
      });
    }
  }
  // A media query's rule that the elements' own style attributes override (media-overrides.ts), for
  // the clients that read media queries: all but classic Outlook.
  if (ctx.targetClients.some((c) => c !== MSO_CLIENT))
    findings.push(...overriddenMediaRules(ctx.doc, CLIENT_TARGETING));
  const order = { error: 0, warning: 1, info: 2 };
  findings.sort((a, b) => order[a.severity] - order[b.severity] || (a.line ?? 0) - (b.line ?? 0));
  return checkOf('compatibility', findings);
}
