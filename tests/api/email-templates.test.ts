import fc from 'fast-check';
import mjml2html from 'mjml';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MJML_OPTIONS } from '../../src/server/prepare/mjml.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * MJML and merge tags through the one door (docs/architecture.md §9): POST /api/email/preview and
 * /api/email/send take `format` and `template`, fill and compile in the transform pool, answer what
 * cannot be done with a 4xx naming it, and store the source, format, syntax and sample data with the
 * email for GET /api/email/{id}.
 */

const MJML = `<mjml>
  <mj-body>
    <mj-section>
      <mj-column>
        <mj-text>Hello {{name}}</mj-text>
        <mj-button href="{{url}}">Confirm</mj-button>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;

describe('MJML and merge tags over the API', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({
      env: {
        PREVIEWS_PER_MINUTE: '1000',
        FREE_MONTHLY_LIMIT: '100',
        FREE_SENDS_PER_MINUTE: '1000',
        // An endless loop is stopped quickly here; the default is 10 s.
        PREPARE_BUDGET_MS: '2000',
      },
    });
  });
  afterAll(async () => ctx?.close());

  let alice: TestUser;
  beforeEach(async () => {
    alice = await createUser(ctx.db);
  });

  const post = (path: 'preview' | 'send', body: object) =>
    ctx.app.inject({ method: 'POST', url: `/api/email/${path}`, headers: alice.headers, payload: body });
  const emailCount = async (userId: string) =>
    Number(
      (
        await ctx.db
          .selectFrom('emails')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('user_id', '=', userId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('previews MJML with Handlebars tags: filled, then compiled exactly as the mjml package does', async () => {
    const data = { name: 'Ada & Co', url: 'https://example.com/c?id=7' };
    const res = await post('preview', {
      html: MJML,
      format: 'mjml',
      template: { syntax: 'handlebars', data },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    const filled = MJML.replace('{{name}}', 'Ada &amp; Co').replace(
      '{{url}}',
      'https://example.com/c?id&#x3D;7',
    );
    expect(body.html).toBe((await mjml2html(filled, MJML_OPTIONS)).html);
    expect(body.notes).toEqual({ inlined: false, keptInStyle: 0, unfilled: [] });
    expect(body.bytes.source).toBe(Buffer.byteLength(MJML));
  });

  it('reports the tags the sample data leaves unfilled, in each syntax', async () => {
    const cases = [
      { syntax: 'handlebars', html: '<p>Hi {{first}}, {{url}} {{FNAME}}</p>', unfilled: ['first', 'url'] },
      {
        syntax: 'liquid',
        html: '<p>Hi {{ first_name }}, {{ shop.url }}</p>',
        unfilled: ['first_name', 'shop.url'],
      },
      { syntax: 'mailchimp', html: '<p>Hi *|FNAME|*, *|LNAME|*</p>', unfilled: ['LNAME'] },
    ];
    for (const { syntax, html, unfilled } of cases) {
      const res = await post('preview', { html, template: { syntax, data: { FNAME: 'Ada', shop: {} } } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().notes.unfilled).toEqual(unfilled);
    }
    // Without a template, the answer has no `unfilled` (and `{{x}}` is just text).
    const plain = await post('preview', { html: '<p>{{x}}</p>' });
    expect(plain.json().notes).toEqual({ inlined: false, keptInStyle: 0 });
    expect(plain.json().html).toBe('<p>{{x}}</p>');
  });

  it('sends the markup a Liquid template makes as markup, escaping only the sample data', async () => {
    const res = await post('preview', {
      subject: 'cap',
      html: '{% capture button %}<a href="https://x.invalid/{{ id }}">Track your order</a>{% endcapture %}<p>{{ button }}</p>{% assign bold = "<b>Sale</b>" %}<p>{{ bold }}</p><p>{{ note | newline_to_br }}</p>',
      template: { syntax: 'liquid', data: { id: 'A1', note: 'Tom & Jerry\nfor <you>' } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().html).toBe(
      '<p><a href="https://x.invalid/A1">Track your order</a></p><p><b>Sale</b></p><p>Tom &amp; Jerry<br />\nfor &lt;you&gt;</p>',
    );
  });

  it('reports a Handlebars field any #each item lacks and a lookup that finds nothing', async () => {
    const each = await post('preview', {
      html: '<p>[{{#each items}}{{name}}|{{/each}}]</p>',
      template: { syntax: 'handlebars', data: { items: [{ name: 'a' }, { nom: 'b' }] } },
    });
    expect(each.statusCode, each.body).toBe(200);
    expect(each.json()).toMatchObject({ html: '<p>[a||]</p>', notes: { unfilled: ['name'] } });
    const lookup = await post('preview', {
      html: '<p>[{{lookup map key}}] [{{lookup map "zz"}}]</p>',
      template: { syntax: 'handlebars', data: { map: { a: 'A' }, key: 'zzz' } },
    });
    expect(lookup.json()).toMatchObject({ html: '<p>[] []</p>', notes: { unfilled: ['map.zzz', 'map.zz'] } });
  });

  it('does not report a tag in an HTML comment no reader sees, but does in an Outlook conditional comment', async () => {
    const cases = [
      {
        syntax: 'handlebars',
        format: 'html',
        html: '<!-- {{secret}} -->\n<p>Hi</p><!--[if mso]>{{mso}}<![endif]-->',
      },
      {
        syntax: 'handlebars',
        format: 'mjml',
        html: MJML.replace(
          '<mj-body>',
          '<mj-body>\n<!-- note {{secret}} -->\n<mj-raw><!--[if mso]>{{mso}}<![endif]--></mj-raw>',
        ),
      },
      { syntax: 'liquid', format: 'html', html: '<!-- {{ secret }} --><!--[if mso]>{{ mso }}<![endif]-->' },
      { syntax: 'mailchimp', format: 'html', html: '<!-- *|secret|* --><!--[if mso]>*|mso|*<![endif]-->' },
    ];
    for (const { syntax, format, html } of cases) {
      const res = await post('preview', {
        html,
        format,
        template: { syntax, data: { name: 'x', url: 'y' } },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().notes.unfilled, `${syntax} ${format}`).toEqual(['mso']);
    }
  });

  it('refuses a very long path or blocks nested too deeply at once with 422 template_too_large at its line', async () => {
    const cases = [
      {
        syntax: 'handlebars',
        html: `<p>\n{{${'a.'.repeat(100_000)}a}}</p>`,
        message: /^Line 2: The path "a\.a\.a.*" has more than 100 parts/,
      },
      {
        syntax: 'handlebars',
        html: `${'{{#if a}}\n'.repeat(2_400)}x${'{{/if}}'.repeat(2_400)}`,
        message: /^Line 101: Blocks are nested more than 100 deep here/,
      },
      {
        syntax: 'liquid',
        html: `${'{% for i in l %}\n'.repeat(2_400)}x${'{% endfor %}'.repeat(2_400)}`,
        message: /^Line 101: Tags are nested more than 100 deep here/,
      },
    ];
    for (const { syntax, html, message } of cases) {
      // Before any engine reads it: not the budget's processing_timeout, nor a crashed process.
      const res = await post('preview', { html, template: { syntax, data: { a: {}, l: [1] } } });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().code).toBe('template_too_large');
      expect(res.json().error).toMatch(message);
      expect(res.json().problems[0].line).toBe(Number(/^Line (\d+)/.exec(res.json().error)![1]));
    }
  });

  it("evaluates Mailchimp's conditional blocks in the HTML and the subject, and refuses one left open", async () => {
    const body = {
      subject: '*|IF:FNAME|**|FNAME|*, your*|ELSE:|*Your*|END:IF|* receipt',
      html: '<p>*|IF:PLAN=pro|*Thanks for going Pro*|ELSEIF:PLAN=team|*Welcome, team*|ELSE:|*Hi*|END:IF|*</p>',
    };
    const res = await post('preview', {
      ...body,
      template: { syntax: 'mailchimp', data: { FNAME: 'Ada', PLAN: 'team' } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ subject: 'Ada, your receipt', html: '<p>Welcome, team</p>' });
    expect(res.json().notes.unfilled).toEqual([]);
    const open = await post('send', {
      to: 'client@example.com',
      html: '<p>\n*|IF:PLAN=pro|*Pro</p>',
      template: { syntax: 'mailchimp', data: {} },
    });
    expect(open.statusCode).toBe(422);
    expect(open.json()).toMatchObject({ code: 'template_invalid', problems: [{ line: 2 }] });
    expect(await emailCount(alice.user.id)).toBe(0);
  });

  it('keeps the subject as written, tags and all, for Edit and Resend; the email says the one sent', async () => {
    const sent = await post('send', {
      to: 'client@example.com',
      subject: 'Hi {{name}}, your order',
      html: '<p>Hello {{name}}</p>',
      template: { syntax: 'handlebars', data: { name: 'Ada' } },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const detail = (
      await ctx.app.inject({ method: 'GET', url: `/api/email/${sent.json().id}`, headers: alice.headers })
    ).json();
    expect(detail.subject).toBe('Hi Ada, your order');
    expect(detail.source).toMatchObject({
      subject: 'Hi {{name}}, your order',
      html: '<p>Hello {{name}}</p>',
    });
    // Without tags the two are one, stored once.
    const plain = await post('send', { to: 'client@example.com', subject: 'Spring news', html: '<p>Hi</p>' });
    const row = await ctx.db
      .selectFrom('emails')
      .select(['subject', 'source_subject'])
      .where('id', '=', plain.json().id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ subject: 'Spring news', source_subject: null });
  });

  it('fills the merge tags of a text part the user wrote, as plain text, and names a problem in it', async () => {
    const res = await post('preview', {
      html: '<p>Hi {{name}}</p>',
      text: 'Hi {{name}},\nyour code is {{code}}.\n{{missing}}',
      template: { syntax: 'handlebars', data: { name: 'Ann & Bob', code: '<A1>' } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().text).toBe('Hi Ann & Bob,\nyour code is <A1>.\n');
    expect(res.json().notes.unfilled).toEqual(['missing']);
    const bad = await post('preview', {
      html: '<p>x</p>',
      text: 'Hi {{#if name}}',
      template: { syntax: 'handlebars', data: {} },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error).toMatch(/^In the text part: The Handlebars merge tags could not be read/);
    const grown = await post('preview', {
      html: '<p>x</p>',
      text: '*|A|*'.repeat(100),
      template: { syntax: 'mailchimp', data: { A: 'x'.repeat(20_000) } },
    });
    expect(grown.statusCode).toBe(413);
    expect(grown.json()).toMatchObject({
      code: 'text_too_large',
      error: expect.stringMatching(/^Plain-text part is too large once its merge tags are filled/),
    });
    const sent = await post('send', {
      to: 'client@example.com',
      html: '<p>x</p>',
      text: '*|IF:FNAME|*Hi *|FNAME|**|ELSE:|*Hi*|END:IF|*',
      template: { syntax: 'mailchimp', data: { FNAME: 'Zoë' } },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const row = await ctx.db
      .selectFrom('emails')
      .select(['text_part', 'text_override'])
      .where('id', '=', sent.json().id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      text_part: 'Hi Zoë',
      text_override: '*|IF:FNAME|*Hi *|FNAME|**|ELSE:|*Hi*|END:IF|*',
    });
  });

  it('answers invalid MJML with 422 mjml_invalid and the problems at their lines', async () => {
    const html = MJML.replace('<mj-text>', '<mj-text colour="red">');
    const res = await post('preview', { html, format: 'mjml' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      error: 'This MJML is not valid: line 5: Attribute colour is illegal',
      code: 'mjml_invalid',
      problems: [{ line: 5, message: 'Attribute colour is illegal' }],
    });
    const include = await post('send', {
      to: 'client@example.com',
      html: '<mjml><mj-body>\n<mj-include path="/etc/passwd" /></mj-body></mjml>',
      format: 'mjml',
    });
    expect(include.statusCode).toBe(422);
    expect(include.json().code).toBe('mjml_invalid');
    expect(include.json().problems).toEqual([
      { line: 2, message: expect.stringContaining('<mj-include> is not available') },
    ]);
    expect(await emailCount(alice.user.id)).toBe(0);
  });

  it('refuses prototype access and file includes with a 422 naming them, and sends nothing', async () => {
    const attempts = [
      { syntax: 'handlebars', html: '{{constructor.constructor}}', code: 'template_not_allowed' },
      { syntax: 'handlebars', html: '{{__proto__}}', code: 'template_not_allowed' },
      { syntax: 'handlebars', html: '{{> secrets}}', code: 'template_not_allowed' },
      { syntax: 'liquid', html: '{{ a.constructor }}', code: 'template_not_allowed' },
      { syntax: 'liquid', html: "{% include 'secrets' %}", code: 'template_not_allowed' },
      { syntax: 'liquid', html: "{% render '/etc/passwd' %}", code: 'template_not_allowed' },
      { syntax: 'liquid', html: '{% if %}', code: 'template_invalid' },
    ];
    for (const { syntax, html, code } of attempts) {
      for (const path of ['preview', 'send'] as const) {
        const res = await post(path, {
          to: 'client@example.com',
          html,
          template: { syntax, data: { a: {} } },
        });
        expect(res.statusCode, `${path} ${html}`).toBe(422);
        expect(res.json().code).toBe(code);
        expect(res.json().error).toMatch(/line 1/i);
        expect(res.json().problems[0].line).toBe(1);
      }
    }
    expect(await emailCount(alice.user.id)).toBe(0);
  });

  it('stops an endless loop at the time budget with 422 processing_timeout, answering other requests meanwhile', async () => {
    // Loops over the data allocate nothing (a range would meet Liquid's memory limit first).
    const loop =
      '{% for i in a %}{% for j in a %}{% for k in a %}{% for l in a %}{% endfor %}{% endfor %}{% endfor %}{% endfor %}';
    const a = Array.from({ length: 1000 }, () => 0);
    const started = Date.now();
    const stuck = post('preview', { html: `<p>${loop}</p>`, template: { syntax: 'liquid', data: { a } } });
    // While the loop runs in a transform process, the server answers at once.
    await new Promise((r) => setTimeout(r, 300));
    const during = Date.now();
    const health = await ctx.app.inject({ method: 'GET', url: '/api/health' });
    expect(health.statusCode).toBe(200);
    const other = await post('preview', {
      html: '<p>{{ n }}</p>',
      template: { syntax: 'liquid', data: { n: 1 } },
    });
    expect(other.statusCode).toBe(200);
    expect(other.json().html).toBe('<p>1</p>');
    const answeredIn = Date.now() - during;
    const res = await stuck;
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      error:
        // Inline CSS was off: it is not offered as a way out.
        'Processing this email took longer than 2 seconds and was stopped. Check its merge tags for a loop that runs too long, or make it smaller.',
      code: 'processing_timeout',
    });
    // The others were answered before the loop was stopped.
    expect(answeredIn).toBeLessThan(Date.now() - started);
    const after = await post('preview', {
      html: '<p>{{n}}</p>',
      template: { syntax: 'handlebars', data: { n: 2 } },
    });
    expect(after.json().html).toBe('<p>2</p>');
  });

  it('refuses merge tags that make the HTML larger than 1 MB with the 413 of a source that large, and charges nothing', async () => {
    const usage = async () =>
      (await ctx.app.inject({ method: 'GET', url: '/api/user/usage', headers: alice.headers })).json().usage
        .emailsThisMonth as number;
    const before = await usage();
    expect(before).toBe(0);
    for (const path of ['preview', 'send'] as const) {
      const res = await post(path, {
        to: 'client@example.com',
        html: `{% for row in rows %}<p>${'x'.repeat(1000)}</p>{% endfor %}`,
        template: { syntax: 'liquid', data: { rows: Array.from({ length: 1100 }, () => 0) } },
      });
      expect(res.statusCode, path).toBe(413);
      expect(res.json()).toEqual({
        error:
          'HTML content is too large once its merge tags are filled: the limit is 1 MB. Check the merge tags for a loop that repeats too much.',
        code: 'html_too_large',
      });
      // A range too large to build is stopped before it is: a 422 at its line.
      const range = await post(path, {
        to: 'client@example.com',
        html: '<p>\n{% for i in (1..100000000) %}x{% endfor %}</p>',
        template: { syntax: 'liquid', data: {} },
      });
      expect(range.statusCode, path).toBe(422);
      expect(range.json().code).toBe('template_too_large');
      expect(range.json().problems[0].line).toBe(2);
    }
    expect(await emailCount(alice.user.id)).toBe(0);
    expect(await usage()).toBe(0);
    // The allowance was given back: the next send is charged.
    expect((await post('send', { to: 'client@example.com', html: '<p>x</p>' })).statusCode).toBe(200);
    expect(await usage()).toBe(1);
  });

  it('checks format and template with a 400 naming the problem', async () => {
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < 20; i++) at = (at.x = {}) as Record<string, unknown>;
    const cases: [object, number, string, string][] = [
      [{ format: 'markdown' }, 400, 'invalid_request', 'format'],
      [{ template: { syntax: 'jinja', data: {} } }, 400, 'invalid_request', 'template.syntax'],
      [{ template: { syntax: 'liquid', data: {}, extra: 1 } }, 400, 'invalid_request', 'template'],
      [
        { template: { syntax: 'liquid', data: [1, 2] } },
        400,
        'invalid_template_data',
        'Sample data must be a JSON object such as {"name": "Ada"}; it is an array.',
      ],
      [
        { template: { syntax: 'liquid', data: 'Ada' } },
        400,
        'invalid_template_data',
        'Sample data must be a JSON object such as {"name": "Ada"}; it is a string.',
      ],
      [
        { template: { syntax: 'liquid' } },
        400,
        'invalid_template_data',
        'Sample data must be a JSON object such as {"name": "Ada"}; it is nothing.',
      ],
      [
        { template: { syntax: 'liquid', data: deep } },
        400,
        'template_data_too_deep',
        'Sample data nests too deeply: the limit is 16 levels of objects and arrays.',
      ],
      [
        { template: { syntax: 'liquid', data: { big: 'x'.repeat(70 * 1024) } } },
        400,
        'template_data_too_large',
        'Sample data is too large: 71 KB of JSON; the limit is 64 KB.',
      ],
    ];
    for (const [extra, status, code, message] of cases) {
      for (const path of ['preview', 'send'] as const) {
        const res = await post(path, { to: 'client@example.com', html: '<p>x</p>', ...extra });
        expect(res.statusCode, `${path} ${JSON.stringify(extra).slice(0, 80)}`).toBe(status);
        expect(res.json().code).toBe(code);
        if (code === 'invalid_request')
          expect(res.json().error).toMatch(new RegExp(`^${message.replace('.', '\\.')}`));
        else expect(res.json().error).toBe(message);
      }
    }
    expect(await emailCount(alice.user.id)).toBe(0);
  });

  it('answers any template-like source with 200 or a 422 naming the problem, never a 5xx', async () => {
    const piece = fc.constantFrom(
      '{{',
      '}}',
      '{{{',
      '}}}',
      '{%',
      '%}',
      '*|',
      '|*',
      '#each ',
      '/each',
      '#if ',
      '/if',
      '> ',
      'else',
      'for x in ',
      'endfor',
      'include ',
      'a.b',
      '../',
      '@root.',
      'constructor',
      '__proto__',
      'lookup ',
      '(1..3)',
      '| upcase',
      '"',
      "'",
      '<mjml>',
      '</mjml>',
      '<mj-body>',
      '<mj-text>',
      '</mj-text>',
      'x',
      ' ',
      '\n',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { minLength: 1, maxLength: 30 }).map((a) => a.join('')),
        fc.constantFrom('handlebars', 'liquid', 'mailchimp'),
        fc.constantFrom('html', 'mjml'),
        async (html, syntax, format) => {
          const res = await post('preview', {
            html,
            format,
            template: { syntax, data: { a: { b: 1 }, x: [1, 2] } },
          });
          // A blank source is the spec's "missing fields" 400.
          const allowed = html.trim() ? [200, 422] : [400];
          expect(allowed, `${syntax} ${format} ${html}: ${res.body}`).toContain(res.statusCode);
          if (res.statusCode === 422) expect(res.json().error.length).toBeGreaterThan(10);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('needs a session before it reads the body', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/preview',
      payload: { html: MJML, format: 'mjml', template: { syntax: 'liquid', data: [] } },
    });
    expect(res.statusCode, res.body).toBe(401);
  });

  it('sends the filled, compiled result and stores the source, format, syntax and data for GET /api/email/{id}', async () => {
    const data = { name: 'Ada', url: 'https://example.com/c', nested: { list: [1, 'two', null] } };
    const body = {
      to: 'client@example.com',
      subject: 'Welcome',
      html: MJML,
      format: 'mjml',
      template: { syntax: 'handlebars', data },
    };
    const preview = await post('preview', body);
    expect(preview.statusCode, preview.body).toBe(200);
    const sent = await post('send', body);
    expect(sent.statusCode, sent.body).toBe(200);
    const { id } = sent.json();

    const got = await ctx.app.inject({ method: 'GET', url: `/api/email/${id}`, headers: alice.headers });
    expect(got.statusCode).toBe(200);
    const email = got.json();
    expect(email.html).toBe(preview.json().html);
    expect(email.source).toEqual({
      format: 'mjml',
      html: MJML,
      subject: 'Welcome',
      template: { syntax: 'handlebars', data },
      inlineCss: false,
      text: null,
    });
    // Its keys come back in the order written (a template may loop over them), not sorted.
    expect(Object.keys(email.source.template.data)).toEqual(['name', 'url', 'nested']);

    // Another user does not see it.
    const bob = await createUser(ctx.db);
    const other = await ctx.app.inject({ method: 'GET', url: `/api/email/${id}`, headers: bob.headers });
    expect(other.statusCode).toBe(404);

    // A plain HTML send keeps the defaults.
    const plain = await post('send', { to: 'client@example.com', html: '<p>Plain</p>' });
    const plainEmail = (
      await ctx.app.inject({ method: 'GET', url: `/api/email/${plain.json().id}`, headers: alice.headers })
    ).json();
    expect(plainEmail.source).toEqual({
      format: 'html',
      html: '<p>Plain</p>',
      subject: '',
      inlineCss: false,
      text: null,
    });
  });
});
