/**
 * The stack of open elements as documentDepth (document-depth.ts) keeps it: enough of the HTML
 * standard's tree construction to count depth from the deep side — scopes, the list of active
 * formatting elements (reopened before text), elements a parser takes out in place, and SVG and
 * MathML with the points where HTML comes back.
 */

/** Where a search for an element to close implicitly stops (the parser's scope boundaries). */
export const SCOPE = new Set([
  'applet',
  'caption',
  'html',
  'table',
  'td',
  'th',
  'marquee',
  'object',
  'template',
  'button',
  'svg',
  'math',
]);

/** How far down an implied close looks; deeper, the element stays open (the count errs on the deep side). */
const IMPLIED_CLOSE_REACH = 64;

/** HTML's formatting elements: their end tags run the adoption agency (`endFormatting`). */
export const FORMATTING = new Set([
  'a',
  'b',
  'big',
  'code',
  'em',
  'font',
  'i',
  'nobr',
  's',
  'small',
  'strike',
  'strong',
  'tt',
  'u',
]);
/** Where HTML comes back inside SVG and MathML (HTML and MathML text integration points). */
const INTEGRATION_POINTS = {
  svg: new Set(['foreignobject', 'desc', 'title']),
  math: new Set(['mi', 'mo', 'mn', 'ms', 'mtext']),
};
type Namespace = keyof typeof INTEGRATION_POINTS;

/** HTML's special elements: an end tag of any other kind stops at them (and is then ignored). */
export const SPECIAL = new Set(
  (
    'address applet area article aside base basefont bgsound blockquote body br button caption center col ' +
    'colgroup dd details dir div dl dt embed fieldset figcaption figure footer form frame frameset h1 h2 h3 ' +
    'h4 h5 h6 head header hgroup hr html iframe img input keygen li link listing main marquee menu meta nav ' +
    'noembed noframes noscript object ol p param plaintext pre script search section select source style ' +
    'summary table tbody td template textarea tfoot th thead title tr track ul wbr xmp ' +
    'mi mo mn ms mtext annotation-xml foreignobject desc'
  ).split(' '),
);

/** The end tags a parser looks up "in scope"; the others (span, custom tags, …) stop at SPECIAL. */
const IN_SCOPE = new Set([
  ...'address article aside blockquote button center details dialog dir div dl fieldset figcaption'.split(
    ' ',
  ),
  ...'figure footer header hgroup listing main menu nav ol pre search section summary ul dd dt'.split(' '),
  ...'h1 h2 h3 h4 h5 h6 applet marquee object template form'.split(' '),
]);

/** The scopes an end tag looks for its element in (HTML's "has an element in … scope"). */
type Scope = 'default' | 'list' | 'button' | 'table' | 'special';
const SCOPE_BOUNDARIES: Record<Scope, Set<string>> = {
  default: SCOPE,
  list: new Set([...SCOPE, 'ol', 'ul']),
  button: SCOPE, // SCOPE already holds button
  table: new Set(['html', 'table', 'template']),
  special: SPECIAL,
};
const SCOPES = Object.keys(SCOPE_BOUNDARIES) as Scope[];
const TABLE_SCOPED = new Set(['table', 'tbody', 'thead', 'tfoot', 'tr', 'td', 'th', 'caption']);

const boundedBy = new Map<string, Scope[]>();
/** The scopes `name` is a boundary of (most names: none). */
function scopesBoundedBy(name: string): Scope[] {
  let scopes = boundedBy.get(name);
  if (!scopes) {
    scopes = SCOPES.filter((scope) => SCOPE_BOUNDARIES[scope].has(name));
    if (boundedBy.size < 1024) boundedBy.set(name, scopes); // element names are the writer's to choose
  }
  return scopes;
}

function scopeOf(endTag: string): Scope {
  if (endTag === 'li') return 'list';
  if (endTag === 'p') return 'button';
  if (TABLE_SCOPED.has(endTag)) return 'table';
  return IN_SCOPE.has(endTag) ? 'default' : 'special';
}

/**
 * The open elements. Each name keeps the positions where it is open and each scope the positions
 * of its boundaries, so that an end tag finds its element, and whether it is in scope, without
 * walking the stack. An element a parser takes out of the stack without popping what stands above
 * it (a `form`, a formatting element with a block inside) stays in the stack as removed, and still
 * counts towards the depth: a `form` stays the parent of what it holds, and the adoption agency
 * puts a copy of a formatting element inside the block it moves out. It is popped with what stands
 * above it.
 */
/** An entry of HTML's list of active formatting elements: a formatting element, or a marker. */
interface Formatting {
  name: string;
  /** The start tag's attributes as written (for the "Noah's Ark" limit of three alike). */
  attrs: string;
  /** Where it stands in the stack; -1 once popped (it is reopened when content follows). */
  at: number;
}
export class OpenElements {
  private readonly names: string[] = [];
  private readonly removed: boolean[] = [];
  /** Per position: the formatting entry it holds, or the marker it put in the list. */
  private readonly entries: (Formatting | { marker: true } | undefined)[] = [];
  /** Per position: an SVG or MathML element (HTML's foreign content), or HTML (undefined). */
  private readonly foreign: (Namespace | undefined)[] = [];
  private readonly active: (Formatting | { marker: true })[] = [];
  /** Elements reopened so far (see `reconstruct`), to bound the work. */
  reopened = 0;
  deepest = 0;
  private readonly positions = new Map<string, number[]>();
  private readonly boundaries: Record<Scope, number[]> = {
    default: [],
    list: [],
    button: [],
    table: [],
    special: [],
  };

  top(): string | undefined {
    return this.names[this.names.length - 1];
  }

  isOpen(name: string): boolean {
    return (this.positions.get(name)?.length ?? 0) > 0;
  }

  /** Whether `name` is open and was opened after any open `than` (a template inside it starts afresh). */
  openSince(name: string, than: string): boolean {
    const at = this.positions.get(name);
    if (!at?.length) return false;
    const since = this.positions.get(than);
    return !since?.length || at[at.length - 1]! > since[since.length - 1]!;
  }

  /**
   * Whether a start tag now is SVG or MathML: inside an `<svg>` or `<math>`, but not right inside
   * one of the points where HTML comes back (foreignObject, desc, title; MathML's text elements).
   */
  inForeign(): boolean {
    const top = this.names.length - 1;
    return top >= 0 && this.foreignAt(top);
  }

  /** Whether the element at `index` is SVG or MathML where HTML does not come back. */
  private foreignAt(index: number): boolean {
    const ns = this.foreign[index];
    return ns !== undefined && !INTEGRATION_POINTS[ns].has(this.names[index]!);
  }

  /** An HTML start tag met in foreign content: the SVG or MathML elements around it are closed. */
  breakOut(): void {
    let index = this.names.length;
    while (index > 0 && this.foreignAt(index - 1)) index--;
    this.truncate(index);
  }

  /** The nearest open element named in `names`, within reach. */
  nearest(names: Set<string>): string | undefined {
    const index = this.nearestIndex(names);
    return index === -1 ? undefined : this.names[index];
  }

  /** The position of the nearest open element named in `names` above every `stoppers`, within reach; -1 if none. */
  private nearestIndex(names: Set<string>, stoppers?: Set<string>): number {
    const floor = Math.max(0, this.names.length - IMPLIED_CLOSE_REACH);
    for (let i = this.names.length - 1; i >= floor; i--) {
      if (this.removed[i]) continue;
      const open = this.names[i]!;
      if (names.has(open)) return i;
      if (stoppers?.has(open)) return -1;
    }
    return -1;
  }

  /** An element that opens and closes at once: one level below the current one. */
  leaf(): void {
    this.deepest = Math.max(this.deepest, this.names.length + 1);
  }

  push(name: string, entry?: Formatting | { marker: true }): void {
    const index = this.names.length;
    // In foreign content every start tag is of the namespace around it (a <math> inside an <svg> is
    // SVG), but for an <svg> in MathML's annotation-xml; elsewhere <svg> and <math> start their own.
    const around = this.inForeign() ? this.foreign[index - 1] : undefined;
    const foreign: Namespace | undefined =
      around && !(name === 'svg' && this.names[index - 1] === 'annotation-xml')
        ? around
        : name === 'svg' || name === 'math'
          ? name
          : undefined;
    this.names.push(name);
    this.removed.push(false);
    this.entries.push(entry);
    this.foreign.push(foreign);
    this.deepest = Math.max(this.deepest, index + 1);
    let at = this.positions.get(name);
    if (!at) this.positions.set(name, (at = []));
    at.push(index);
    for (const scope of scopesBoundedBy(name)) this.boundaries[scope].push(index);
  }

  /** Pops everything from `index` up (and elements removed in place that end up on top). */
  truncate(index: number): void {
    for (let i = this.names.length - 1; i >= index; i--) this.pop();
    while (this.removed[this.names.length - 1]) this.pop();
  }

  private pop(): void {
    const name = this.names.pop()!;
    if (!this.removed.pop()) this.positions.get(name)!.pop();
    this.foreign.pop();
    const entry = this.entries.pop();
    if (entry && 'marker' in entry) {
      // A cell, caption, applet, marquee, object or template closes: its formatting goes with it.
      const from = this.active.lastIndexOf(entry);
      if (from !== -1) this.active.length = from;
    } else if (entry) entry.at = -1;
    for (const scope of scopesBoundedBy(name)) this.boundaries[scope].pop();
  }

  /** Closes the nearest open element named in `names` above every boundary in `stoppers`, if any. */
  closeNearest(names: Set<string>, stoppers: Set<string>): void {
    let any = false;
    for (const n of names) any ||= this.isOpen(n);
    if (!any) return;
    const index = this.nearestIndex(names, stoppers);
    if (index !== -1) this.truncate(index);
  }

  /** Opens a formatting element and lists it (at most three alike after the last marker). */
  pushFormatting(name: string, attrs: string): void {
    let alike = 0;
    for (let i = this.active.length - 1; i >= 0; i--) {
      const e = this.active[i]!;
      if ('marker' in e) break;
      if (e.name === name && e.attrs === attrs && ++alike === 3) {
        this.active.splice(i, 1);
        break;
      }
    }
    const entry: Formatting = { name, attrs, at: this.names.length };
    this.push(name, entry);
    this.active.push(entry);
  }

  /** Opens a cell, caption, applet, marquee, object or template: a marker in the list. */
  pushMarker(name: string): void {
    const marker = { marker: true as const };
    this.push(name, marker);
    this.active.push(marker);
  }

  /** The last listed formatting element of this name after the last marker. */
  listed(name: string): Formatting | undefined {
    for (let i = this.active.length - 1; i >= 0; i--) {
      const e = this.active[i]!;
      if ('marker' in e) return undefined;
      if (e.name === name) return e;
    }
    return undefined;
  }

  /** Whether `reconstruct` has anything to reopen. */
  hasPopped(): boolean {
    const last = this.active[this.active.length - 1];
    return last !== undefined && !('marker' in last) && last.at === -1;
  }

  /**
   * Reopens the listed formatting elements that were popped (HTML's "reconstruct the active
   * formatting elements"), as a parser does before text and most start tags.
   */
  reconstruct(): void {
    if (!this.hasPopped()) return;
    let i = this.active.length;
    while (i > 0) {
      const e = this.active[i - 1]!;
      if ('marker' in e || e.at !== -1) break;
      i--;
    }
    for (; i < this.active.length; i++) {
      const e = this.active[i] as Formatting;
      e.at = this.names.length;
      this.push(e.name, e);
      this.reopened++;
    }
  }

  /** The end tag of a formatting element (HTML's adoption agency, as far as depth goes). */
  endFormatting(name: string): void {
    const entry = this.listed(name);
    if (!entry) return this.close(name, 'special'); // as any other end tag
    if (entry.at !== -1 && !this.inScope(entry.at, 'default')) return; // ignored
    this.active.splice(this.active.lastIndexOf(entry), 1);
    if (entry.at === -1) return; // popped already: only taken off the list
    this.entries[entry.at] = undefined;
    this.closeAt(entry.at, true);
  }

  /**
   * An end tag other than a formatting element's. Out of scope (a boundary such as a table or a
   * cell stands above the element) a parser ignores it. Otherwise it closes the element and
   * everything inside it, except `form`, which leaves what stands above it open.
   */
  close(name: string, scope: Scope = scopeOf(name)): void {
    const at = this.positions.get(name);
    const index = at?.[at.length - 1];
    if (index !== undefined && this.inScope(index, scope)) this.closeAt(index, name === 'form');
  }

  /** Whether `name` is open with no boundary of `scope` above it: what an end tag of it would close. */
  hasInScope(name: string, scope: Scope = scopeOf(name)): boolean {
    const at = this.positions.get(name);
    const index = at?.[at.length - 1];
    return index !== undefined && this.inScope(index, scope);
  }

  /** No boundary of `scope` stands above the element at `index`. */
  private inScope(index: number, scope: Scope): boolean {
    const bounds = this.boundaries[scope];
    return index >= (bounds[bounds.length - 1] ?? -1);
  }

  /**
   * Closes the element at `index`: with everything above it, or, `inPlace`, alone (it stays in
   * the stack as removed, and counts, while something stands above it).
   */
  private closeAt(index: number, inPlace: boolean): void {
    if (!inPlace || index === this.names.length - 1) return this.truncate(index);
    this.removed[index] = true;
    const at = this.positions.get(this.names[index]!)!;
    at.splice(at.lastIndexOf(index), 1);
  }
}
