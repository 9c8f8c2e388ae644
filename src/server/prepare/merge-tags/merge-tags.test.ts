import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import Handlebars from 'handlebars';
import { Liquid } from 'liquidjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PrepareError, prepare } from '../prepare.ts';
import { refusal as refusalOf, testEnvelope } from '../prepare-test-support.ts';
import { fillHandlebars } from './fill-handlebars.ts';
import { fillLiquid } from './fill-liquid.ts';
import { fillMergeTags, MAX_MERGE_TAGS } from './merge-tags.ts';
import { outOfRoom } from './template-problem.ts';

const fill = (syntax: 'handlebars' | 'liquid' | 'mailchimp', source: string, data: Record<string, unknown>) =>
  fillMergeTags(source, { syntax, data });

/** The error a fill throws, or a failure when it throws none. */
function refusal(run: () => unknown): PrepareError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(PrepareError);
    return err as PrepareError;
  }
  throw new Error('expected the fill to be refused');
}

const data = {
  name: 'Ada & Co <admin>',
  url: 'https://example.com/confirm?a=1&b=2',
  items: [
    { title: 'Notebook', price: 12 },
    { title: 'Pen', price: 3 },
  ],
  account: { plan: 'Pro' },
};

describe('Handlebars', () => {
  it('fills values (HTML-escaped), loops, conditions and @root, exactly', () => {
    const source = [
      '<p>Hello {{name}}</p>',
      '<a href="{{url}}">Confirm</a>',
      '<ul>{{#each items}}<li>{{@index}}. {{title}}: ${{price}} ({{@root.account.plan}})</li>{{/each}}</ul>',
      '{{#if account.plan}}<b>{{account.plan}}</b>{{else}}none{{/if}}',
      '{{{name}}}',
    ].join('\n');
    expect(fill('handlebars', source, data)).toEqual({
      output: [
        '<p>Hello Ada &amp; Co &lt;admin&gt;</p>',
        '<a href="https://example.com/confirm?a&#x3D;1&amp;b&#x3D;2">Confirm</a>',
        '<ul><li>0. Notebook: $12 (Pro)</li><li>1. Pen: $3 (Pro)</li></ul>',
        '<b>Pro</b>',
        'Ada & Co <admin>',
      ].join('\n'),
      unfilled: [],
    });
  });

  it('reports the tags the data does not fill, as written, once each (not the ones in conditions)', () => {
    const source =
      '{{FNAME}} {{url}} {{account.owner}} {{#each items}}{{title}}{{sku}}{{/each}} {{#each items as |it|}}{{it.colour}}{{/each}} {{#if coupon}}x{{/if}} {{FNAME}}';
    const filled = fill('handlebars', source, data);
    expect(filled.unfilled).toEqual(['FNAME', 'account.owner', 'sku', 'it.colour']);
    expect(filled.output).toBe(' https://example.com/confirm?a&#x3D;1&amp;b&#x3D;2  NotebookPen   ');
  });

  it('reads only the branch the sample data takes, where it decides it', () => {
    for (const [source, output] of [
      ['{{#if coupon}}{{coupon.code}}{{else}}No coupon{{/if}}', 'No coupon'],
      ['{{#if account.plan}}{{account.plan}}{{else}}{{trial}}{{/if}}', 'Pro'],
      ['{{#unless account.plan}}{{upgrade}}{{/unless}}', ''],
      ['{{#each items}}{{title}}{{else}}{{empty_message}}{{/each}}', 'NotebookPen'],
      ['{{#with account}}{{plan}}{{else}}{{anonymous}}{{/with}}', 'Pro'],
    ]) {
      expect(fill('handlebars', source!, data), source).toEqual({ output, unfilled: [] });
    }
    // The branch taken is read; one the data cannot decide (a helper's answer), both.
    expect(fill('handlebars', '{{#if coupon}}x{{else}}{{fallback}}{{/if}}', data).unfilled).toEqual([
      'fallback',
    ]);
    // A list or object with an {{else}} is tested, as a condition is: its else renders, nothing blank.
    expect(fill('handlebars', '{{#each orders}}x{{else}}{{none}}{{/each}}', data).unfilled).toEqual(['none']);
    expect(fill('handlebars', '{{#with user}}{{name}}{{else}}x{{/with}}', {}).unfilled).toEqual([]);
    expect(fill('handlebars', '{{#with user}}{{name}}{{/with}}', {}).unfilled).toEqual(['user']);
    expect(
      fill('handlebars', '{{#if (lookup account "plan")}}{{a}}{{else}}{{b}}{{/if}}', data).unfilled,
    ).toEqual(['a', 'b']);
  });

  it('reads a block with block params in the item’s context, as Handlebars renders it', () => {
    // These render every value, so none is unfilled: `as |i|` names the item, it does not keep
    // the outer context (they were reported, a false alarm in the checklist).
    for (const [source, output] of [
      ['{{#each items as |i|}}{{title}}/{{i.title}};{{/each}}', 'Notebook/Notebook;Pen/Pen;'],
      [
        '{{#each items as |i|}}{{../url}}|{{/each}}',
        'https://example.com/confirm?a&#x3D;1&amp;b&#x3D;2|'.repeat(2),
      ],
      ['{{#with account as |a|}}{{plan}}{{a.plan}}{{/with}}', 'ProPro'],
    ]) {
      expect(fill('handlebars', source!, data), source).toEqual({ output, unfilled: [] });
    }
    // What the item lacks is still reported, by either name.
    expect(fill('handlebars', '{{#each items as |i|}}{{sku}}{{i.sku}}{{/each}}', data).unfilled).toEqual([
      'sku',
      'i.sku',
    ]);
  });

  it('refuses prototype access, partials and helpers that are not built in, with the line', () => {
    for (const source of [
      '{{constructor.constructor}}',
      '{{__proto__}}',
      '{{lookup this "constructor"}}',
      '{{a.toString}}',
    ]) {
      const err = refusal(() => fill('handlebars', `ok\n${source}`, {}));
      expect(err.code).toBe('template_not_allowed');
      expect(err.message).toMatch(/^Line 2: ".+" is a property every JavaScript object has/);
      expect(err.problems).toEqual([{ line: 2, message: expect.stringContaining('sample data') }]);
    }
    const partial = refusal(() => fill('handlebars', 'a\n\n{{> footer}}', {}));
    expect(partial.code).toBe('template_not_allowed');
    expect(partial.message).toBe(
      'Line 3: Partials ({{> name}}) are not available: there are no files or registered partials to include. Put their content in the template.',
    );
    const helper = refusal(() => fill('handlebars', '{{formatPrice price}}', {}));
    expect(helper.code).toBe('template_invalid');
    expect(helper.message).toContain('"formatPrice" is not a built-in helper');
  });

  it('answers a syntax error with its line', () => {
    const err = refusal(() => fill('handlebars', '<p>\n{{#each items}}\n<li>', {}));
    expect(err.code).toBe('template_invalid');
    expect(err.message).toMatch(/^The Handlebars merge tags could not be read \(line \d\): /);
    expect(err.problems?.[0]?.line).toBeGreaterThanOrEqual(2);
  });
});

describe('Liquid', () => {
  it('fills values (HTML-escaped), loops, filters and `| raw`, exactly', () => {
    const source = [
      '<p>Hello {{ name }}</p>',
      '<a href="{{ url }}">Confirm</a>',
      '<ul>{% for item in items %}<li>{{ forloop.index }}. {{ item.title | upcase }}: ${{ item.price | times: 2 }}</li>{% endfor %}</ul>',
      '{% if account.plan == "Pro" %}<b>{{ account.plan }}</b>{% endif %}',
      '{{ name | raw }}',
    ].join('\n');
    expect(fill('liquid', source, data)).toEqual({
      output: [
        '<p>Hello Ada &amp; Co &lt;admin&gt;</p>',
        '<a href="https://example.com/confirm?a=1&amp;b=2">Confirm</a>',
        '<ul><li>1. NOTEBOOK: $24</li><li>2. PEN: $6</li></ul>',
        '<b>Pro</b>',
        'Ada & Co <admin>',
      ].join('\n'),
      unfilled: [],
    });
  });

  it("escapes `| escape` and `| escape_once` once: Liquid's own idiom, from engines that escape nothing", () => {
    const source =
      '{{ name | escape }} {{ name | escape_once }} {{ "&amp; x" | escape_once }} {{ name | escape | upcase }} ' +
      '{{ name | escape | strip }} {{ nobody | default: name | escape | append: "!" }}{% if name %} {{ name | escape }}{% endif %}';
    // Anywhere in an output's filters, the engine does not escape their answer again.
    expect(fill('liquid', source, data).output).toBe(
      // (&AMP; and &LT; are references too: "ADA & CO <ADMIN>", as stock Liquid sends it.)
      'Ada &amp; Co &lt;admin&gt; Ada &amp; Co &lt;admin&gt; &amp; x ADA &AMP; CO &LT;ADMIN&GT; ' +
        'Ada &amp; Co &lt;admin&gt; Ada &amp; Co &lt;admin&gt;! Ada &amp; Co &lt;admin&gt;',
    );
    // An output that does not escape by hand is escaped by the engine as before.
    expect(fill('liquid', '{{ name | strip }}', data).output).toBe('Ada &amp; Co &lt;admin&gt;');
  });

  it('reports what rendered blank: a value or a loop item’s field the data lacks (not assigns)', () => {
    const source =
      '{{ first_name }} {% assign greeting = "Hi" %}{{ greeting }} {% for item in items %}{{ item.sku }}{% endfor %} {{ account.owner.email }} {{ url }}';
    const filled = fill('liquid', source, data);
    expect(filled.unfilled).toEqual(['first_name', 'item.sku', 'account.owner.email']);
    expect(filled.output).toBe(' Hi   https://example.com/confirm?a=1&amp;b=2');
  });

  it('does not report what renders: first, last and size, conditions, defaults, branches not taken', () => {
    // Each of these rendered every value it shows, and each was reported (errors in the checklist).
    for (const [source, output] of [
      ['{{ items.first.title }} {{ items.size }} {{ items.last.price }} {{ name.size }}', 'Notebook 2 3 16'],
      ['{% if coupon %}{{ coupon }}{% else %}none{% endif %}{% unless gone %}.{% endunless %}', 'none.'],
      ['{% case account.tier %}{% when "gold" %}{{ gold }}{% endcase %}', ''],
      ['{{ nickname | default: name }}', 'Ada &amp; Co &lt;admin&gt;'],
      ['{% if items.size > 1 %}{{ items[1].title }}{% endif %}', 'Pen'],
    ] as const) {
      expect(fill('liquid', source, data), source).toEqual({ output, unfilled: [] });
    }
    // A loop over nothing is reported, as Handlebars' #each is; what a branch taken lacks is too.
    expect(fill('liquid', '{% for x in orders %}{{ x.id }}{% endfor %}', data).unfilled).toEqual(['orders']);
    expect(fill('liquid', '{% if name %}{{ surname }}{% endif %}', data).unfilled).toEqual(['surname']);
    expect(fill('liquid', '{{ items[5].title }}', data).unfilled).toEqual(['items[5].title']);
  });

  it('refuses prototype access and file tags, with the line', () => {
    for (const source of ['{{ a.constructor }}', '{{ a.__proto__ }}', '{% assign c = a.constructor %}']) {
      const err = refusal(() => fill('liquid', `ok\n${source}`, { a: {} }));
      expect(err.code).toBe('template_not_allowed');
      expect(err.problems?.[0]?.line).toBe(2);
    }
    for (const tag of ['include', 'render', 'layout']) {
      const err = refusal(() => fill('liquid', `a\n\n{% ${tag} 'x' %}`, {}));
      expect(err.code).toBe('template_not_allowed');
      expect(err.message).toBe(
        `Line 3: {% ${tag} %} is not available: there are no files to include. Put their content in the template.`,
      );
    }
  });

  it('answers a syntax error and an unknown filter with the line', () => {
    const syntax = refusal(() => fill('liquid', 'a\n{% if %}', {}));
    expect(syntax.code).toBe('template_invalid');
    expect(syntax.problems?.[0]?.line).toBe(2);
    const filter = refusal(() => fill('liquid', '{{ name | shout }}', {}));
    expect(filter.message).toBe('The Liquid merge tags could not be read (line 1): undefined filter: shout');
  });
});

describe('Liquid token positions', () => {
  it('are the line and column liquidjs would count, from the index of line starts', async () => {
    const { Liquid } = await import('liquidjs');
    const source = 'a\n  {{ one }}\n\n{% if x %}\n    {{ two.three }}{{ four }}\n{% endif %}';
    const variables = new Liquid().analyzeSync(new Liquid().parse(source)).variables;
    const naive = (at: number) => {
      const before = source.slice(0, at).split('\n');
      return { row: before.length, col: before.at(-1)!.length + 1 };
    };
    const found = Object.values(variables)
      .flat()
      .map((v) => ({ name: String(v), row: v.location.row, col: v.location.col }));
    expect(found).toEqual([
      { name: 'one', ...naive(source.indexOf('one')) },
      { name: 'x', ...naive(source.indexOf('x %')) },
      { name: 'two.three', ...naive(source.indexOf('two')) },
      { name: 'four', ...naive(source.indexOf('four')) },
    ]);
  });
});

describe('Mailchimp', () => {
  it('fills *|TAG|* from the data (exact key or upper case), HTML-escaped, and reports the rest', () => {
    const filled = fill('mailchimp', 'Hi *|FNAME|* *|lname|*, *|MISSING|* *|UNSUB|* *|COUNT|*', {
      FNAME: 'Ada & <Co>',
      LNAME: 'Lovelace',
      COUNT: 3,
      OBJ: { a: 1 },
    });
    expect(filled).toEqual({
      output: 'Hi Ada &amp; &lt;Co&gt; Lovelace, *|MISSING|* *|UNSUB|* 3',
      unfilled: ['MISSING', 'UNSUB'],
    });
  });

  it('fills from a key in any case when neither the tag nor its upper case is a key', () => {
    expect(fill('mailchimp', '*|FNAME|* *|Lname|*', { fname: 'Ada', LNAME: 'L' }).output).toBe('Ada L');
    // An exact key wins over another case.
    expect(fill('mailchimp', '*|FNAME|*', { fname: 'x', FNAME: 'Ada' }).output).toBe('Ada');
  });
});

describe('Mailchimp conditional blocks', () => {
  const mc = (source: string, data: Record<string, unknown>) => fill('mailchimp', source, data);

  it('keeps the branch whose condition holds: a value given, IFNOT, ELSEIF and ELSE', () => {
    const greeting = '*|IF:FNAME|*Hi *|FNAME|*,*|ELSE:|*Hi there,*|END:IF|*';
    expect(mc(greeting, { FNAME: 'Ann' })).toEqual({ output: 'Hi Ann,', unfilled: [] });
    // Empty, false, missing or not a plain value: no value given.
    for (const FNAME of ['', false, null, { a: 1 }]) expect(mc(greeting, { FNAME }).output).toBe('Hi there,');
    expect(mc(greeting, {}).output).toBe('Hi there,');
    expect(mc('*|IFNOT:COUPON|*none*|ELSE:|**|COUPON|**|END:IF|*', { COUPON: 'X1' }).output).toBe('X1');
    const plan = '*|IF:PLAN=pro|*P*|ELSEIF:PLAN=team|*T*|ELSEIF:PLAN!=free|*?*|ELSE:|*F*|END:IF|*';
    expect(['pro', 'team', 'trial', 'free'].map((PLAN) => mc(plan, { PLAN }).output)).toEqual([
      'P',
      'T',
      '?',
      'F',
    ]);
    // Lower-case tags and keys read as Mailchimp reads them.
    expect(mc('*|if:fname|*yes*|end:if|*', { fname: 'a' }).output).toBe('yes');
  });

  it('compares numbers as numbers and text exactly; with no value only != holds', () => {
    const age = (AGE: unknown, condition: string) =>
      mc(`*|IF:AGE${condition}|*y*|ELSE:|*n*|END:IF|*`, { AGE }).output;
    expect([age(9, '<10'), age('10', '>=10'), age(10.5, '>10'), age('9', '>10'), age(9, '<=8')]).toEqual([
      'y',
      'y',
      'y',
      'n',
      'n',
    ]);
    expect([age('Pro', '=pro'), age('b', '>a'), age(undefined, '=1'), age(undefined, '!=1')]).toEqual([
      'n',
      'y',
      'n',
      'y',
    ]);
  });

  it('nests, and fills or reports only the tags of the branches kept', () => {
    const source =
      '*|IF:VIP|*\n*|IF:FNAME|*Dear *|FNAME|**|ELSE:|*Dear member*|END:IF|*\n*|ELSE:|**|MISSING|**|END:IF|*';
    expect(mc(source, { VIP: 'yes', FNAME: 'Ann' })).toEqual({ output: '\nDear Ann\n', unfilled: [] });
    expect(mc(source, { VIP: 'yes' }).output).toBe('\nDear member\n');
    expect(mc(source, {})).toEqual({ output: '*|MISSING|*', unfilled: ['MISSING'] });
  });

  it('refuses a block left open or closed twice, and a branch after ELSE, at its line', () => {
    const problem = (source: string) => {
      const err = refusal(() => mc(source, {}));
      return [err.code, err.message];
    };
    expect(problem('<p>\n*|IF:A|*x\n</p>')).toEqual([
      'template_invalid',
      'The Mailchimp merge tags could not be read (line 2): *|IF:…|* has no *|END:IF|*',
    ]);
    expect(problem('x\n\n*|END:IF|*')[1]).toBe(
      'The Mailchimp merge tags could not be read (line 3): *|END:IF|* has no *|IF:…|* before it',
    );
    expect(problem('*|IF:A|*\n*|ELSE:|*\n*|ELSEIF:B|**|END:IF|*')[1]).toBe(
      "The Mailchimp merge tags could not be read (line 3): *|ELSEIF:B|* comes after the block's *|ELSE:|*",
    );
    expect(problem('*|IF:=x|*y*|END:IF|*')[1]).toMatch(/"=x" is not a condition such as FNAME or PLAN=pro/);
  });
});

describe('sandbox', () => {
  afterEach(() => vi.restoreAllMocks());

  it('touches no file and no network while filling', () => {
    const spies = [
      vi.spyOn(fs, 'readFileSync'),
      vi.spyOn(fs, 'readFile'),
      vi.spyOn(fs, 'openSync'),
      vi.spyOn(fs, 'existsSync'),
      vi.spyOn(fs, 'statSync'),
      vi.spyOn(net, 'connect'),
      vi.spyOn(http, 'request'),
    ];
    fill('handlebars', '{{name}}{{#each items}}{{title}}{{/each}}', data);
    fill('liquid', '{{ name }}{% for i in items %}{{ i.title }}{% endfor %}', data);
    fill('mailchimp', '*|FNAME|*', { FNAME: 'x' });
    for (const tag of ['include', 'render', 'layout'])
      refusal(() => fill('liquid', `{% ${tag} '/etc/passwd' %}`, {}));
    refusal(() => fill('handlebars', '{{> /etc/passwd}}', {}));
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });
});

describe('the subject', () => {
  it('fills values unescaped when asked (plain text), in every syntax', () => {
    const plain = { escape: false };
    expect(fillMergeTags('Hi {{name}}', { syntax: 'handlebars', data }, plain).output).toBe(
      'Hi Ada & Co <admin>',
    );
    expect(fillMergeTags('Hi {{ name }}', { syntax: 'liquid', data }, plain).output).toBe(
      'Hi Ada & Co <admin>',
    );
    expect(fillMergeTags('Hi *|NAME|*', { syntax: 'mailchimp', data: { NAME: 'A & B' } }, plain).output).toBe(
      'Hi A & B',
    );
    // The default stays HTML-escaped, and the plain engine refuses includes alike.
    expect(fill('liquid', 'Hi {{ name }}', data).output).toBe('Hi Ada &amp; Co &lt;admin&gt;');
    expect(refusal(() => fillMergeTags("{% include 'x' %}", { syntax: 'liquid', data }, plain)).code).toBe(
      'template_not_allowed',
    );
  });
});

describe('a fill that would make far too much', () => {
  const TOO_LARGE = /^HTML content is too large once its merge tags are filled: the limit is 1 MB\./;

  it('stops Liquid past its memory limit at once, instead of building a huge range and exhausting the process', () => {
    for (const source of [
      '{% for i in (1..100000000) %}<p>x</p>{% endfor %}',
      '{% assign s = "xxxxxxxx" %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s }}',
    ]) {
      const err = refusal(() => fill('liquid', source, {}));
      expect(err.code).toBe('template_too_large');
      expect(err.message).toMatch(
        /^The Liquid merge tags use more memory than a template may \(line 1\): ranges, filters and assigns may make at most 8 million items and characters in all\./,
      );
      expect(err.problems?.[0]?.line).toBe(1);
    }
    // Ranges an email uses are untouched.
    expect(fill('liquid', '{% for i in (1..3) %}{{ i }}{% endfor %}', {}).output).toBe('123');
  });

  it('answers a string longer than JavaScript allows as too large, not as a template it cannot read', () => {
    // What liquidjs throws for it: a RenderError around V8's RangeError.
    const wrapped = Object.assign(new Error('Invalid string length, line:1, col:1'), {
      originalError: new RangeError('Invalid string length'),
    });
    expect(outOfRoom(wrapped)?.message).toMatch(TOO_LARGE);
    expect(outOfRoom(new RangeError('Invalid string length'))?.code).toBe('html_too_large');
    expect(outOfRoom(new RangeError('Maximum call stack size exceeded'))).toBeUndefined();
    expect(outOfRoom(new Error('unexpected token'))).toBeUndefined();
  });

  /** 30,000 items whose reads are counted: how far a loop over them went before it stopped. */
  function countedRows() {
    let reads = 0;
    const rows = new Proxy(
      Array.from({ length: 30_000 }, () => 0),
      {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
          return Reflect.get(target, key, receiver) as unknown;
        },
      },
    );
    return { rows, reads: () => reads };
  }
  /** At most: an item per `bytes` of the 1 MB written, and each loop's first look at the whole list. */
  const readsWithin = (bytes: number) => (1024 * 1024) / bytes + 4 * 30_000;

  it('stops a Handlebars #each once it has made more than the limit, however deep the loops', () => {
    const { rows, reads } = countedRows();
    // 30,000 × 30,000 paragraphs would be 15 GB: the inner loops make 480 KB each, the outer one passes 1 MB at its third.
    const err = refusal(() =>
      fill('handlebars', '{{#each rows}}{{#each ../rows}}<p>x</p>{{/each}}{{/each}}', { rows }),
    );
    expect(err.code).toBe('html_too_large');
    expect(err.message).toMatch(TOO_LARGE);
    expect(reads()).toBeLessThan(readsWithin('<p>x</p>'.length));
    // One loop of 1 MB is filled, exactly as the built-in #each fills it.
    const out = fill('handlebars', '{{#each rows}}<p>{{@index}}{{#if @first}}!{{/if}}</p>{{/each}}', {
      rows: rows.slice(0, 3),
    });
    expect(out.output).toBe('<p>0!</p><p>1</p><p>2</p>');
    expect(fill('handlebars', '{{#each rows}}{{this}}{{else}}none{{/each}}', { rows: [] }).output).toBe(
      'none',
    );
    expect(
      fill('handlebars', '{{#each o as |v k|}}{{k}}={{v}};{{/each}}', { o: { a: 1, b: 2 } }).output,
    ).toBe('a=1;b=2;');
  });

  it('stops a Liquid loop once it has written more than the limit, writing what it writes unchanged', () => {
    for (const [source, item] of [
      ['{% for a in rows %}{% for b in rows %}<p>x</p>{% endfor %}{% endfor %}', '<p>x</p>'],
      ['{% tablerow a in rows cols:3 %}{% for b in rows %}x{% endfor %}{% endtablerow %}', 'x'],
    ] as const) {
      const { rows, reads } = countedRows();
      const err = refusal(() => fill('liquid', source, { rows }));
      expect(err.code).toBe('html_too_large');
      expect(err.message).toMatch(TOO_LARGE);
      expect(reads()).toBeLessThan(readsWithin(item.length));
    }
    // Ranges the same way.
    const ranges = '{% for a in (1..30000) %}{% for b in (1..30000) %}<p>x</p>{% endfor %}{% endfor %}';
    expect(refusal(() => fill('liquid', ranges, {})).code).toBe('html_too_large');
    // Loops write what the stock engine writes.
    const stock = new Liquid();
    for (const source of [
      '{% for i in (1..5) %}{% if i == 4 %}{% break %}{% endif %}{{ i }},{% endfor %}',
      '{% for i in (1..5) reversed limit:3 %}{% continue %}{{ i }}{% endfor %}{% for i in (1..3) %}{{ forloop.index }}{{ i }}{% endfor %}',
      '{% for i in e %}x{% else %}none{% endfor %}',
      '{% tablerow i in (1..5) cols:2 %}{{ i }}{{ tablerowloop.col }}{% endtablerow %}',
      '{% for row in items %}{% for c in row %}{{ c }}{% endfor %};{% endfor %}',
    ]) {
      const d = { e: [], items: [[1, 2], [3]] };
      expect(fillMergeTags(source, { syntax: 'liquid', data: d }, { escape: false }).output, source).toBe(
        stock.parseAndRenderSync(source, d),
      );
    }
  });

  it('stops Mailchimp tags once their values pass the limit', () => {
    const err = refusal(() => fill('mailchimp', '*|A|*'.repeat(100), { A: 'x'.repeat(20_000) }));
    expect(err.code).toBe('html_too_large');
    expect(err.message).toMatch(TOO_LARGE);
    // Up to the limit is filled.
    expect(fill('mailchimp', '*|A|*'.repeat(50), { A: 'x'.repeat(20_000) }).output).toHaveLength(1_000_000);
  });
});

describe('the same email fills to the same bytes, at preview and at send', () => {
  afterEach(() => vi.restoreAllMocks());
  const liquid = (source: string, d: Record<string, unknown>) =>
    fillMergeTags(source, { syntax: 'liquid', data: d });

  it('refuses Liquid’s "now" and "today" without a moment in the sample data, at their line', () => {
    for (const source of [
      '{{ "now" | date: "%H:%M:%S" }}',
      '{{ "today" | date: "%Y" }}',
      '{{ "now" | date: "%s" }}',
      '{% assign t = "now" %}{{ t | date_to_xmlschema }}',
    ]) {
      const err = refusal(() => liquid(`<p>\n${source}`, data));
      expect(err.code, source).toBe('template_not_allowed');
      expect(err.message).toMatch(
        /^Line 2: "(now|today)" is the moment the email is filled, so the preview and the send would show different dates and times\. Give the moment to show in the sample data, as \{"now": "2026-12-24T09:00:00Z"\}; "now" and "today" then read it\.$/,
      );
      expect(err.problems?.[0]?.line).toBe(2);
    }
    // Only where it renders.
    expect(liquid('{% if false %}{{ "now" | date: "%Y" }}{% endif %}ok', {}).output).toBe('ok');
  });

  it('reads Liquid’s "now" and "today" from the sample data’s "now"', () => {
    const source =
      '{{ "now" | date: "%Y-%m-%d %H:%M:%S %s" }}|{{ "today" | date: "%A %B %-d" }}|{{ "now" | date_to_xmlschema }}|{{ "now" | date_to_rfc822 }}|{{ "today" | date_to_long_string }}';
    const expected =
      '2026-12-24 09:30:00 1798104600|Thursday December 24|2026-12-24T09:30:00+00:00|Thu, 24 Dec 2026 09:30:00 +0000|24 December 2026';
    for (const now of ['2026-12-24T09:30:00Z', 1798104600, '1798104600']) {
      expect(liquid(source, { now }).output).toBe(expected);
    }
    for (const now of ['now', 'tomorrow', { at: 1 }, null]) {
      expect(refusal(() => liquid(source, { now })).message).toBe(
        'Line 1: "now" reads the sample data\'s "now", which is not a date: write it as "now": "2026-12-24T09:00:00Z" or as seconds since 1970.',
      );
    }
  });

  it('shows Liquid dates in UTC and in English, whatever the zone of the process', () => {
    vi.stubEnv('TZ', 'America/New_York');
    try {
      expect(new Date(Date.UTC(2026, 2, 5, 17)).getHours()).toBe(12);
      expect(liquid('{{ d | date: "%H:%M %Z %A %B" }}', { d: '2026-03-05T17:04:09Z' }).output).toBe(
        '17:04 UTC Thursday March',
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('draws Liquid’s `sample` from the email, not from Math.random: the same items each time', () => {
    const random = vi.spyOn(Math, 'random');
    const items = Array.from({ length: 20 }, (_, i) => i);
    const source = '{{ items | sample: 3 | join: "," }} {{ items | sample }} {{ "abcdef" | sample }}';
    const first = liquid(source, { items }).output;
    for (let i = 0; i < 5; i++) expect(liquid(source, { items }).output).toBe(first);
    expect(random).not.toHaveBeenCalled();
    const [three, one, letter] = first.split(' ');
    const picked = three!.split(',').map(Number);
    expect(new Set(picked).size).toBe(3);
    for (const n of [...picked, Number(one)]) expect(items).toContain(n);
    expect('abcdef').toContain(letter);
    expect(liquid('[{{ nothing | sample }}]', {}).output).toBe('[]');
  });

  it('reads no clock and no Math.random in any syntax', () => {
    const now = vi.spyOn(Date, 'now');
    const random = vi.spyOn(Math, 'random');
    const d = { ...data, now: '2026-12-24T09:30:00Z', FNAME: 'Ada' };
    const filled = [
      fill(
        'handlebars',
        '{{#each items}}{{title}}{{@index}}{{/each}}{{name}}{{#if account}}{{account.plan}}{{/if}}',
        d,
      ),
      fill(
        'liquid',
        '{{ "now" | date: "%Y" }} {{ items | sample: 2 | map: "title" | join }} {{ "today" | date }}',
        d,
      ),
      fill('mailchimp', '*|IF:FNAME|*Hi *|FNAME|**|END:IF|* © *|CURRENT_YEAR|* *|DATE:Y|*', d),
    ];
    expect(now).not.toHaveBeenCalled();
    expect(random).not.toHaveBeenCalled();
    // Mailchimp's date tags are tags like any other: the sample data fills them, or they are unfilled.
    expect(filled[2]).toEqual({
      output: 'Hi Ada © *|CURRENT_YEAR|* *|DATE:Y|*',
      unfilled: ['CURRENT_YEAR', 'DATE:Y'],
    });
  });
});

describe('Handlebars problems, in the email developer’s terms', () => {
  const problem = (source: string) => {
    const err = refusal(() => fill('handlebars', source, data));
    return { code: err.code, message: err.message, line: err.problems?.[0]?.line };
  };
  const read = (line: number, reason: string) => ({
    code: 'template_invalid',
    message: `The Handlebars merge tags could not be read (line ${line}): ${reason}`,
    line,
  });

  it('names a block never closed at the line it opens, and every other syntax error at its tag', () => {
    for (const [source, line, reason] of [
      ['<p>\n{{#if account}}\n<b>x</b>\n</p>', 2, 'the {{#if}} block is never closed: add {{/if}}'],
      [
        '{{#each items}}\n{{#if title}}\n{{/each}}',
        2,
        'the {{#if}} block is never closed: add {{/if}} before the {{/each}} on line 3',
      ],
      ['x\n{{/if}}', 2, '{{/if}} closes no block: remove it, or open the block with {{#if …}}'],
      [
        '{{#if a}}\n{{/fi}}',
        2,
        '{{/fi}} closes no block: the block open here is {{#if}} on line 1, closed with {{/if}}',
      ],
      ['x\n{{else}}', 2, '{{else}} is outside any block: it belongs between {{#if …}} and {{/if}}'],
      [
        '{{#if a}}\n1{{else}}2\n{{else}}3{{/if}}',
        3,
        'the {{#if}} block on line 1 has a second {{else}}: a block has one (for more branches, {{else if …}})',
      ],
      ['a\n{{name', 2, 'the tag "{{name" is never closed: add }}'],
      ['<p>{{name</p>\n<p>{{other}}</p>', 1, 'the tag "{{name</p>" is never closed: add }}'],
      ['a\n{{}}', 2, '{{}} is empty: put a name in it, as in {{first_name}}'],
      [
        'a\n{{name!}}',
        2,
        '"{{name!}}" is not a tag Handlebars can read: a name has no spaces or punctuation but - and _ (other keys go in brackets, as {{[first name]}})',
      ],
      [
        '{{{name}}',
        1,
        '"{{{name}}" opens with {{{ and closes with }}: use three braces on both sides, or two',
      ],
      ['a\n{{!-- note', 2, 'the comment {{!-- is never closed: add --}}'],
      ['{{#each items as |a}}x{{/each}}', 1, 'in a tag, Handlebars expected a name but found "}}"'],
    ] as const) {
      expect(problem(source), source).toEqual(read(line, reason));
    }
  });

  it('names built-in helpers used in a way Handlebars cannot render, at their line, not JavaScript’s errors', () => {
    const cases: [string, string][] = [
      [
        '{{helperMissing}}',
        '"helperMissing" is not a built-in helper; only if, unless, each, with and lookup are available.',
      ],
      [
        '{{#blockHelperMissing}}x{{/blockHelperMissing}}',
        '"blockHelperMissing" is not a built-in helper; only if, unless, each, with and lookup are available.',
      ],
      ['{{lookup}}', '{{lookup}} takes an object and a key, as in {{lookup prices plan}}'],
      ['{{lookup account}}', '{{lookup}} takes an object and a key, as in {{lookup prices plan}}'],
      ['{{#if}}x{{/if}}', '{{#if}} takes exactly one value to test, as in {{#if coupon}}…{{/if}}'],
      ['{{#if a b}}x{{/if}}', '{{#if}} takes exactly one value to test, as in {{#if coupon}}…{{/if}}'],
      [
        '{{#if a}}{{else if}}{{/if}}',
        '{{#if}} takes exactly one value to test, as in {{#if coupon}}…{{/if}}',
      ],
      [
        '{{#each}}x{{/each}}',
        '{{#each}} takes exactly one list to repeat over, as in {{#each items}}…{{/each}}',
      ],
      ['{{#with}}x{{/with}}', '{{#with}} takes exactly one object, as in {{#with customer}}…{{/with}}'],
      [
        '{{if account}}',
        '{{if}} works only as a block, with one value to test, as in {{#if coupon}}…{{/if}}',
      ],
      [
        '{{each items}}',
        '{{each}} works only as a block, with one list to repeat over, as in {{#each items}}…{{/each}}',
      ],
    ];
    for (const [source, reason] of cases) expect(problem(`ok\n${source}`), source).toEqual(read(2, reason));
    // Used as Handlebars documents them, they fill.
    expect(
      fill('handlebars', '{{lookup account "plan"}}{{#if (lookup account "plan")}}!{{/if}}', data).output,
    ).toBe('Pro!');
  });

  it('names no line for the subject or a text part, in any syntax', async () => {
    for (const [syntax, source] of [
      ['handlebars', '{{#if a}}x'],
      ['handlebars', 'x {{/if}}'],
      ['handlebars', '{{lookup}}'],
      ['handlebars', '{{> footer}}'],
      ['handlebars', '{{constructor}}'],
      ['liquid', '{% if a %}x'],
      ['liquid', "{% include 'x' %}"],
      ['liquid', '{{ a.constructor }}'],
      ['liquid', '{{ "now" | date: "%Y" }}'],
      ['mailchimp', '*|IF:A|*x'],
      ['mailchimp', '*|END:IF|*'],
    ] as const) {
      const err = refusal(() => fillMergeTags(source, { syntax, data: {} }, { escape: false }));
      expect(err.message, source).not.toMatch(/line/i);
    }
    const err = await refusalOf(
      prepare(
        {
          html: '<p>x</p>',
          format: 'html',
          inlineCss: false,
          text: null,
          subject: 'Hi {{#if name}}{{name}}',
          template: { syntax: 'handlebars', data: {} },
        },
        testEnvelope,
      ),
    );
    expect(err.message).toBe(
      'In the subject: The Handlebars merge tags could not be read: the {{#if}} block is never closed: add {{/if}}',
    );
  });
});

describe('a template with very many tags', () => {
  afterEach(() => vi.restoreAllMocks());

  it(`fills up to ${MAX_MERGE_TAGS} tags and refuses more before filling, naming the count, the limit and the line`, () => {
    const loops = {
      handlebars: 'a loop over a list in the sample data ({{#each items}}…{{/each}})',
      liquid: 'a loop over a list in the sample data ({% for item in items %}…{% endfor %})',
      mailchimp: 'fewer tags: Mailchimp’s merge language has no loops',
    };
    for (const [syntax, tag] of [
      ['handlebars', '{{a}}'],
      ['liquid', '{{a}}'],
      ['mailchimp', '*|A|*'],
    ] as const) {
      const d = { a: 'x', A: 'x' };
      expect(fillMergeTags(tag.repeat(MAX_MERGE_TAGS), { syntax, data: d }).output).toBe(
        'x'.repeat(MAX_MERGE_TAGS),
      );
      const message = `This template has 5,001 merge tags; at most 5,000 can be filled. To repeat markup, use ${loops[syntax]}.`;
      const source = `${tag.repeat(MAX_MERGE_TAGS)}\n${tag}`;
      const err = refusal(() => fillMergeTags(source, { syntax, data: d }));
      expect(err.code).toBe('template_too_large');
      expect(err.message).toBe(`Line 2: ${message}`);
      expect(err.problems).toEqual([{ line: 2, message }]);
      expect(refusal(() => fillMergeTags(source, { syntax, data: d }, { escape: false })).message).toBe(
        message,
      );
    }
  });

  it('compiles Handlebars into short functions, however many tags one body has', () => {
    const { JavaScriptCompiler } = Handlebars as unknown as {
      JavaScriptCompiler: { prototype: { compile(environment: { opcodes: unknown[] }): unknown } };
    };
    const compile = vi.spyOn(JavaScriptCompiler.prototype, 'compile');
    expect(fillHandlebars('{{a}}'.repeat(5_000), { a: 'x' }).output).toBe('x'.repeat(5_000));
    expect(fillHandlebars(`{{#if a}}${'<i>{{a}}</i>'.repeat(5_000)}{{/if}}`, { a: 'x' }).output).toBe(
      '<i>x</i>'.repeat(5_000),
    );
    const longest = Math.max(...compile.mock.calls.map(([environment]) => environment.opcodes.length));
    expect(longest).toBeLessThan(1_000);
  });

  it('finds a Handlebars block’s compiled twin without comparing it with every block before it', () => {
    const { Compiler } = Handlebars as unknown as { Compiler: { prototype: { equals(): boolean } } };
    const equals = vi.spyOn(Compiler.prototype, 'equals');
    let source = '';
    for (let i = 0; i < 1_000; i++)
      source += `{{#if a}}<b>{{v${i}}}</b>{{/if}}{{#if a}}<b>{{v${i}}}</b>{{/if}}`;
    const d = { a: 1, v7: 'seven' };
    const filled = fillHandlebars(source, d).output;
    expect(equals.mock.calls.length).toBeLessThan(5_000);
    equals.mockRestore();
    expect(filled).toBe(Handlebars.create().compile(source, { knownHelpersOnly: true })(d));
  });

  it('fills long Handlebars bodies exactly as the stock engine does', () => {
    const unit = [
      '<tr>{{#each items as |item i|}}<td>{{i}}{{item.title}}{{../name}}{{@first}}{{@root.account.plan}}</td>{{else}}none{{/each}}</tr>',
      '  {{#if account}}',
      '  <b>{{account.plan}}</b>',
      '  {{else}}',
      '  x',
      '  {{/if}}',
      '{{~name~}} | {{{name}}} {{! a comment }} {{!-- another --}}',
      '{{#with account}}{{plan}}{{../name}}{{/with}}{{#unless missing}}u{{/unless}}{{lookup account "plan"}}',
      `{{#each nulls}}${'[{{this}}|{{../name}}|{{@index}}|{{#if this}}t{{/if}}]\n'.repeat(70)}{{/each}}`,
      `{{#each items}}${'<i>{{title}}{{../name}}{{this.price}}{{@last}}</i>\n'.repeat(150)}{{/each}}`,
    ].join('\n');
    const d = { ...data, nulls: [null, 0, '', 'x', false] };
    for (const source of [
      Array.from({ length: 30 }, () => unit).join('\n'),
      // Groups that begin and end with line breaks are not standalone lines to strip.
      `\n${'{{name}}\n'.repeat(300)}`,
      `\n  ${'{{name}}\n  '.repeat(300)}\n`,
    ]) {
      expect(fillHandlebars(source, d).output).toBe(
        Handlebars.create().compile(source, { knownHelpersOnly: true })(d),
      );
    }
  });

  it('parses Liquid without copying the rest of the tokens for each one', () => {
    const shift = vi.spyOn(Array.prototype, 'shift');
    const filled = fillLiquid('{{ a }}{% if a %}{{ a }}{% endif %}'.repeat(2_000), { a: 'x' });
    const calls = shift.mock.calls.length;
    shift.mockRestore();
    expect(filled.output).toBe('xx'.repeat(2_000));
    expect(calls).toBeLessThan(100);
  });

  it('parses every Liquid tag as a stock engine does', () => {
    const stock = new Liquid();
    const source = [
      '{% assign n = 3 %}{% capture c %}[{{ n }}]{% endcapture %}{{ c }}',
      '{% if n > 2 %}big{% elsif n > 1 %}mid{% else %}small{% endif %}{% unless n %}none{% endunless %}',
      '{% case n %}{% when 1 %}one{% when 3 %}three{% else %}other{% endcase %}',
      '{% for i in (1..4) %}{% if i == 3 %}{% break %}{% endif %}{% cycle "a", "b" %}{{ forloop.index }}{% endfor %}',
      '{% tablerow i in (1..3) cols:2 %}{{ i }}{% endtablerow %}',
      '{% raw %}{{ not filled }}{% endraw %}{% comment %}gone{% endcomment %}{% # inline comment %}',
      '{%- liquid\n  assign x = "liq"\n  echo x\n  for i in (1..2)\n    echo i\n  endfor\n-%}',
      '{% increment k %}{% increment k %}{% decrement k %} {% echo "e" | upcase %}',
      '  {%- if true -%}  trimmed  {%- endif -%}  ',
    ].join('\n');
    expect(fillMergeTags(source, { syntax: 'liquid', data: {} }, { escape: false }).output).toBe(
      stock.parseAndRenderSync(source, {}),
    );
  });
});

describe('Liquid keeps the markup the template makes, escaping only the sample data', () => {
  it('writes a captured block, an assigned literal and an output literal as markup', () => {
    const source =
      '{% capture button %}<a href="https://x.invalid/{{ id }}">Track your order</a>{% endcapture %}<p>{{ button }}</p>' +
      '{% assign bold = "<b>Sale</b>" %}<p>{{ bold }}</p>{{ "<i>new</i>" }}{% echo "<u>u</u>" %}';
    // These went out as text: "&lt;a href=&#34;…&#34;&gt;Track your order&lt;/a&gt;".
    expect(fill('liquid', source, { id: 'A1' })).toEqual({
      output:
        '<p><a href="https://x.invalid/A1">Track your order</a></p><p><b>Sale</b></p><i>new</i><u>u</u>',
      unfilled: [],
    });
  });

  it('escapes a value once, inside a capture or through newline_to_br', () => {
    const d = { name: 'Tom & Jerry', note: 'Line <1>\nLine 2' };
    expect(
      fill('liquid', '{% capture c %}<b>{{ name }}</b>{% endcapture %}{{ c }}|{{ c | upcase }}', d).output,
    ).toBe('<b>Tom &amp; Jerry</b>|<B>TOM &AMP; JERRY</B>');
    expect(fill('liquid', '{{ note | newline_to_br }}', d).output).toBe('Line &lt;1&gt;<br />\nLine 2');
    expect(
      fill('liquid', '{% capture c %}<i>{{ note }}</i>{% endcapture %}{{ c | newline_to_br }}', d).output,
    ).toBe('<i>Line &lt;1&gt;<br />\nLine 2</i>');
  });

  it('builds markup from the template’s text and escaped values with append, prepend, replace, join and default', () => {
    const d = { name: 'Tom & Jerry', note: 'a\n<b>', items: ['x<', 'y'] };
    for (const [source, output] of [
      ['{{ name | prepend: "<b>" | append: "</b>" }}', '<b>Tom &amp; Jerry</b>'],
      ['{{ note | replace: "\n", "<br>" }}', 'a<br>&lt;b&gt;'],
      ['{{ name | replace: "&", "and" }}', 'Tom and Jerry'],
      ['{{ name | append: "!" }}', 'Tom &amp; Jerry!'],
      ['{{ items | join: "<br>" }}', 'x&lt;<br>y'],
      [
        '{{ missing | default: "<em>n/a</em>" }} {{ name | default: "<em>n/a</em>" }}',
        '<em>n/a</em> Tom &amp; Jerry',
      ],
      ['{% cycle "<b>", "<i>" %}{% cycle "<b>", "<i>" %}{% cycle name, "x" %}', '<b><i>Tom &amp; Jerry'],
      // Liquid's own escaping is done once; `raw` is not escaped; a filter that answers a value is.
      [
        '{{ name | escape }} {{ name | escape | append: name }} {{ name | raw }}',
        'Tom &amp; Jerry Tom &amp; JerryTom &amp; Jerry Tom & Jerry',
      ],
      ['{{ name | size }} {{ note | strip_html }}', '11 a\n'],
    ] as const) {
      expect(fill('liquid', source, d).output, source).toBe(output);
    }
    // Conditions and sizes read the text of markup.
    expect(
      fill(
        'liquid',
        '{% assign c = "<b>x</b>" %}{% if c == "<b>x</b>" and c contains "x" %}{{ c.size }}{% endif %}',
        {},
      ).output,
    ).toBe('8');
  });

  it('fills HTML exactly as stock liquidjs does when the sample data has nothing to escape', () => {
    const stock = new Liquid();
    const d = {
      id: 'A1',
      name: 'Ada',
      note: 'one\ntwo',
      items: [
        { title: 'Pen', price: 3 },
        { title: 'Ink', price: 5 },
      ],
    };
    const source = [
      '{% capture button %}<a href="https://x.invalid/{{ id }}" style="color:#333">Track</a>{% endcapture %}{{ button }}{{ button | upcase }}',
      '{% assign bold = "<b>Sale</b>" %}{{ bold }}{{ bold | size }}{{ "<i>x</i>" | append: name }}{% echo "<u>" | append: "</u>" %}',
      '{{ note | newline_to_br }}{{ note | replace: "\n", "<br/>" }}{{ name | prepend: "<strong>" | append: "</strong>" }}',
      '<ul>{% for item in items %}<li class="{% cycle "odd", "even" %}">{{ item.title | truncate: 2, "&hellip;" }}: {{ item.price | times: 2 }}</li>{% endfor %}</ul>',
      '{% capture rows %}{% for item in items %}<tr><td>{{ item.title }}</td></tr>{% endfor %}{% endcapture %}<table>{{ rows }}</table>',
      '{{ items | map: "title" | join: "<br>" }}{{ missing | default: "<em>none</em>" }}{{ "<b>a,b</b>" | split: "," | last }}',
      '{% tablerow i in (1..3) cols:2 %}<b>{{ i }}</b>{% endtablerow %}{{ name | escape }}{{ "&amp; <x>" | escape_once }}',
      '{%- liquid\n  assign tag = "<hr>"\n  echo tag\n-%}',
    ].join('\n');
    expect(fill('liquid', source, d).output).toBe(stock.parseAndRenderSync(source, d));
  });
});

describe('Handlebars reports what renders blank in any context', () => {
  it('reports a field any item of an #each lacks, once, and not one a branch the item does not take reads', () => {
    const d = { items: [{ name: 'a', sale: true, price: 1 }, { nom: 'b' }, { name: 'c' }] };
    expect(fill('handlebars', '<p>[{{#each items}}{{name}}|{{/each}}]</p>', d)).toEqual({
      output: '<p>[a||c|]</p>',
      unfilled: ['name'],
    });
    for (const [source, unfilled] of [
      ['{{#each items}}{{#if sale}}{{price}}{{/if}}{{/each}}', []],
      ['{{#each items}}{{#unless sale}}{{price}}{{/unless}}{{/each}}', ['price']],
      ['{{#each items as |it|}}{{it.name}}{{/each}}', ['it.name']],
      ['{{#each groups}}{{#each rows}}{{cell}}{{/each}}{{/each}}', ['cell']],
      ['{{#each groups}}{{#each rows}}{{../title}}{{/each}}{{/each}}', []],
      ['{{#each empty}}{{name}}{{/each}}', []],
    ] as const) {
      const nested = {
        ...d,
        empty: [],
        groups: [
          { title: 't', rows: [{ cell: 1 }, {}] },
          { title: 'u', rows: [] },
        ],
      };
      expect(fill('handlebars', source, nested).unfilled, source).toEqual(unfilled);
    }
  });

  it('reports a lookup that finds nothing, as the path it reads', () => {
    const d = { map: { a: 'A', 'two words': 'W' }, key: 'zzz', keys: [{ k: 'a' }, { k: 'b' }] };
    expect(
      fill('handlebars', '<p>[{{lookup map key}}] [{{lookup map "zz"}}] [{{lookup map "a"}}]</p>', d),
    ).toEqual({
      output: '<p>[] [] [A]</p>',
      unfilled: ['map.zzz', 'map.zz'],
    });
    expect(fill('handlebars', '{{lookup map "two words"}}{{lookup map "x y"}}', d).unfilled).toEqual([
      'map.[x y]',
    ]);
    expect(fill('handlebars', '{{#each keys}}{{lookup ../map k}}{{/each}}', d)).toEqual({
      output: 'A',
      unfilled: ['../map.b'],
    });
    // A lookup in a condition tests; one without an object to read is reported as that path.
    expect(fill('handlebars', '{{#if (lookup map key)}}x{{/if}}{{lookup nothing key}}', d).unfilled).toEqual([
      'nothing',
    ]);
  });
});

describe('merge tags in an HTML comment', () => {
  it('are not reported unfilled in any syntax, but those in Outlook’s conditional comments and in CSS are', () => {
    for (const [syntax, tag] of [
      ['handlebars', (n: string) => `{{${n}}}`],
      ['liquid', (n: string) => `{{ ${n} }}`],
      ['mailchimp', (n: string) => `*|${n}|*`],
    ] as const) {
      const source = [
        `<!-- ${tag('HIDDEN')} -->`,
        `<p>${tag('SHOWN')}</p>`,
        `<!--[if mso]><p>${tag('OUTLOOK')}</p><![endif]-->`,
        `<style><!-- .a { color: ${tag('CSS')}; } --></style>`,
        `<a title="<!--">${tag('TITLE')}</a>`,
        `<!-- note\n${tag('HIDDEN2')} -->`,
      ].join('\n');
      expect(fill(syntax, source, {}).unfilled, syntax).toEqual(['SHOWN', 'OUTLOOK', 'CSS', 'TITLE']);
      // Plain text (the subject, a text part) has no comments: a tag there is read.
      expect(fillMergeTags(`<!-- ${tag('X')} -->`, { syntax, data: {} }, { escape: false }).unfilled).toEqual(
        ['X'],
      );
    }
    expect(fill('liquid', '<!-- {% for o in orders %}{{ o }}{% endfor %} -->', {}).unfilled).toEqual([]);
  });

  it('opens no comment at a <!-- inside a template comment or a CDATA section', () => {
    expect(fill('handlebars', '{{!-- do not use <!-- here --}}<p>Hi {{name}}</p>', {}).unfilled).toEqual([
      'name',
    ]);
    expect(fill('handlebars', '{{! old <!-- }}<p>Hi {{name}}</p>', {}).unfilled).toEqual(['name']);
    expect(
      fill('liquid', '{% comment %}old <!-- banner{% endcomment %}<p>Hi {{ name }}</p>', {}).unfilled,
    ).toEqual(['name']);
    expect(fill('liquid', '{% # old <!-- %}<p>Hi {{ name }}</p>', {}).unfilled).toEqual(['name']);
    for (const [syntax, tag] of [
      ['handlebars', '{{name}}'],
      ['liquid', '{{ name }}'],
      ['mailchimp', '*|name|*'],
    ] as const)
      expect(fill(syntax, `<![CDATA[ <!-- ]]><p>Hi ${tag}</p> -->`, {}).unfilled, syntax).toEqual(['name']);
  });
});

describe('how deep a template nests', () => {
  it('refuses a Handlebars path of more than 100 parts before parsing it, at its line', () => {
    expect(fill('handlebars', `{{${'a.'.repeat(99)}a}}`, { a: {} }).unfilled).toHaveLength(1);
    for (const parts of [101, 100_000]) {
      const started = Date.now();
      const err = refusal(() => fill('handlebars', `<p>\n{{${'a.'.repeat(parts - 1)}a}}</p>`, { a: {} }));
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(err.code).toBe('template_too_large');
      expect(err.message).toMatch(/^Line 2: The path "a\.a\.a.*" has more than 100 parts/);
      expect(err.problems?.[0]?.line).toBe(2);
    }
  });

  it('fills 100 nested blocks at once and refuses 101, at the line of the one too deep, in Handlebars and Liquid', () => {
    const nested = (open: string, close: string, n: number) => `${open}\n`.repeat(n) + 'x' + close.repeat(n);
    for (const [syntax, open, close, words] of [
      ['handlebars', '{{#if a}}', '{{/if}}', /^Line 101: Blocks are nested more than 100 deep here/],
      [
        'handlebars',
        '{{#each @root.l}}',
        '{{/each}}',
        /^Line 101: Blocks are nested more than 100 deep here/,
      ],
      ['liquid', '{% if a %}', '{% endif %}', /^Line 101: Tags are nested more than 100 deep here/],
      ['liquid', '{% for i in l %}', '{% endfor %}', /^Line 101: Tags are nested more than 100 deep here/],
    ] as const) {
      const started = Date.now();
      expect(fill(syntax, nested(open, close, 100), { a: 1, l: [1] }).output.trim()).toBe('x');
      expect(Date.now() - started, `${syntax} ${open}`).toBeLessThan(2_000);
      for (const n of [101, 2_500]) {
        const err = refusal(() => fill(syntax, nested(open, close, n), { a: 1, l: [1] }));
        expect(err.code).toBe('template_too_large');
        expect(err.message).toMatch(words);
      }
    }
    // Each {{else if}} is a block inside the one before; subexpressions nest too; so do a
    // {% liquid %} tag's lines.
    for (const [syntax, source] of [
      ['handlebars', `{{#if a}}${'{{else if a}}'.repeat(100)}{{/if}}`],
      ['handlebars', `{{lookup ${'(lookup '.repeat(101)}a${' b)'.repeat(101)} c}}`],
      ['liquid', `{% liquid\n${'if a\n'.repeat(101)}${'endif\n'.repeat(101)}%}`],
      ['liquid', `{% liquid ${'liquid '.repeat(3_000)}echo 1 %}`],
    ] as const) {
      expect(refusal(() => fill(syntax, source, { a: 1 })).code, source.slice(0, 40)).toBe(
        'template_too_large',
      );
    }
    // The subject names no line.
    const subject = refusal(() =>
      fillMergeTags(
        nested('{% if a %}', '{% endif %}', 101),
        { syntax: 'liquid', data: {} },
        { escape: false },
      ),
    );
    expect(subject.message).toMatch(/^Tags are nested more than 100 deep here/);
  });
});
