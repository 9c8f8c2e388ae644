import type { StarterTemplate } from './starter-template.ts';

/** A two-column newsletter with Liquid merge tags: a loop over the stories, two a row. */

const data = {
  issue: { number: 42, date: 'March 2026' },
  reader: { first_name: 'Ada' },
  stories: [
    {
      title: 'Designing for dark mode',
      summary: 'What changes when the mail client inverts your colours, and what you can do about it.',
      url: 'https://example.com/dark-mode',
    },
    {
      title: 'Tables are still fine',
      summary: 'Why layout tables remain the safest grid for email, and how to keep them readable.',
      url: 'https://example.com/tables',
    },
    {
      title: 'Alt text that helps',
      summary: 'Images are off by default in many clients: write alt text that carries the message.',
      url: 'https://example.com/alt-text',
    },
    {
      title: 'Testing on real inboxes',
      summary: 'A short checklist before you press send on the real list.',
      url: 'https://example.com/testing',
    },
  ],
  unsubscribe_url: 'https://example.com/unsubscribe',
};
const subject = 'The Email Craft Letter';

const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${subject}</title>
<style>
  body { margin: 0; padding: 0; background: #eef2f7; }
  .wrap { max-width: 600px; margin: 0 auto; }
  .head { padding: 32px 24px 8px; font-family: Georgia, serif; color: #0f172a; }
  .head h1 { margin: 0; font-size: 28px; }
  .head p { margin: 4px 0 0; font-family: Helvetica, Arial, sans-serif; font-size: 13px; color: #475569; }
  .story { padding: 12px; vertical-align: top; }
  .story-card { background: #ffffff; border-radius: 8px; padding: 20px; font-family: Helvetica, Arial, sans-serif; }
  .story h2 { margin: 0 0 8px; font-size: 18px; line-height: 24px; color: #0f172a; }
  .story p { margin: 0 0 12px; font-size: 14px; line-height: 21px; color: #334155; }
  .story a { color: #2563eb; font-weight: bold; text-decoration: none; }
  .foot { padding: 16px 24px 32px; font-family: Helvetica, Arial, sans-serif; font-size: 12px; color: #475569; text-align: center; }
  @media (max-width: 480px) { .story { display: block; width: 100% !important; box-sizing: border-box; } }
</style>
</head>
<body>
<div style="display: none; max-height: 0; overflow: hidden; mso-hide: all;">Issue {{ issue.number }}: {{ stories[0].title }}, and three more stories for people who build email.</div>
<table role="presentation" class="wrap" width="100%" cellpadding="0" cellspacing="0">
  <tr>
    <td class="head">
      <h1>The Email Craft Letter</h1>
      <p>Issue {{ issue.number }} · {{ issue.date }} · Hello {{ reader.first_name }}</p>
    </td>
  </tr>
  <tr>
    <td style="padding: 12px;">
      <table role="presentation" width="100%" cellpadding="0" cellspacing="0">
        {% for story in stories %}{% assign column = forloop.index0 | modulo: 2 %}{% if column == 0 %}<tr>{% endif %}
          <td class="story" width="50%">
            <div class="story-card">
              <h2>{{ story.title }}</h2>
              <p>{{ story.summary }}</p>
              <a href="{{ story.url }}">Read “{{ story.title }}” →</a>
            </div>
          </td>
        {% if column == 1 or forloop.last %}</tr>{% endif %}{% endfor %}
      </table>
    </td>
  </tr>
  <tr>
    <td class="foot">You subscribed to The Email Craft Letter. <a href="{{ unsubscribe_url }}" style="color: #475569;">Unsubscribe</a></td>
  </tr>
</table>
</body>
</html>
`;

const mjml = `<mjml lang="en">
  <mj-head>
    <mj-title>${subject}</mj-title>
    <mj-preview>Issue {{ issue.number }}: {{ stories[0].title }}, and three more stories for people who build email.</mj-preview>
    <mj-attributes>
      <mj-all font-family="Helvetica, Arial, sans-serif" />
      <mj-text font-size="14px" line-height="21px" color="#334155" />
    </mj-attributes>
  </mj-head>
  <mj-body background-color="#eef2f7" width="600px">
    <mj-section padding="32px 12px 8px">
      <mj-column>
        <mj-text font-family="Georgia, serif" font-size="28px" line-height="34px" color="#0f172a">The Email Craft Letter</mj-text>
        <mj-text font-size="13px" color="#475569" padding-top="0">Issue {{ issue.number }} · {{ issue.date }} · Hello {{ reader.first_name }}</mj-text>
      </mj-column>
    </mj-section>
    {% for story in stories %}{% assign column = forloop.index0 | modulo: 2 %}{% if column == 0 %}<mj-section padding="0 12px">{% endif %}
      <mj-column width="50%" padding="8px">
        <mj-text container-background-color="#ffffff" padding="20px 20px 8px" font-size="18px" line-height="24px" font-weight="bold" color="#0f172a">{{ story.title }}</mj-text>
        <mj-text container-background-color="#ffffff" padding="0 20px 8px">{{ story.summary }}</mj-text>
        <mj-text container-background-color="#ffffff" padding="0 20px 20px"><a href="{{ story.url }}" style="color: #2563eb; font-weight: bold; text-decoration: none;">Read “{{ story.title }}” →</a></mj-text>
      </mj-column>
    {% if column == 1 or forloop.last %}</mj-section>{% endif %}{% endfor %}
    <mj-section padding="16px 12px 32px">
      <mj-column>
        <mj-text align="center" font-size="12px" color="#475569">You subscribed to The Email Craft Letter. <a href="{{ unsubscribe_url }}" style="color: #475569;">Unsubscribe</a></mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>
`;

export const newsletter: StarterTemplate[] = [
  {
    id: 'newsletter-html',
    name: 'Two-Column Newsletter',
    format: 'html',
    syntax: 'liquid',
    subject,
    source: html,
    data,
  },
  {
    id: 'newsletter-mjml',
    name: 'Two-Column Newsletter',
    format: 'mjml',
    syntax: 'liquid',
    subject,
    source: mjml,
    data,
  },
];
