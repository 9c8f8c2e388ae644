import type { StarterTemplate } from './starter-template.ts';

/** A plain announcement with Mailchimp merge tags (`*|FNAME|*`): one message, one button. */

const data = {
  FNAME: 'Ada',
  COMPANY: 'Northwind Studio',
  FEATURE: 'shared folders',
  URL: 'https://example.com/whats-new',
  UNSUB: 'https://example.com/unsubscribe',
};
const subject = 'Something new at Northwind Studio';

const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${subject}</title>
<style>
  body { margin: 0; padding: 0; background: #f4f4f5; }
  .card { max-width: 560px; margin: 0 auto; background: #ffffff; border-radius: 8px; }
  .inner { padding: 40px 40px 32px; font-family: Helvetica, Arial, sans-serif; color: #27272a; }
  h1 { margin: 0 0 16px; font-size: 24px; line-height: 32px; color: #18181b; }
  p { margin: 0 0 16px; font-size: 16px; line-height: 24px; }
  .button { display: inline-block; padding: 12px 24px; border-radius: 6px; background: #4f46e5; color: #ffffff; text-decoration: none; font-weight: bold; }
  .footer { padding: 24px 40px; font-family: Helvetica, Arial, sans-serif; font-size: 12px; line-height: 18px; color: #52525b; text-align: center; }
</style>
</head>
<body>
<div style="display: none; max-height: 0; overflow: hidden; mso-hide: all;">*|FEATURE|* are here: invite your team and keep your files in one place.</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background: #f4f4f5;">
  <tr>
    <td style="padding: 32px 16px;">
      <table role="presentation" class="card" width="100%" cellpadding="0" cellspacing="0">
        <tr>
          <td class="inner">
            <h1>Hi *|FNAME|*, meet *|FEATURE|*</h1>
            <p>We have been working on something you asked for: *|FEATURE|* are now part of every *|COMPANY|* workspace, at no extra cost.</p>
            <p>Invite your team, keep your files in one place and see who changed what.</p>
            <p style="margin: 24px 0 8px;"><a class="button" href="*|URL|*">See What's New</a></p>
          </td>
        </tr>
      </table>
      <p class="footer">You receive this because you have a *|COMPANY|* account. <a href="*|UNSUB|*" style="color: #52525b;">Unsubscribe</a></p>
    </td>
  </tr>
</table>
</body>
</html>
`;

const mjml = `<mjml lang="en">
  <mj-head>
    <mj-title>${subject}</mj-title>
    <mj-preview>*|FEATURE|* are here: invite your team and keep your files in one place.</mj-preview>
    <mj-attributes>
      <mj-all font-family="Helvetica, Arial, sans-serif" />
      <mj-text font-size="16px" line-height="24px" color="#27272a" />
    </mj-attributes>
  </mj-head>
  <mj-body background-color="#f4f4f5" width="560px">
    <mj-section padding="32px 0 0">
      <mj-column background-color="#ffffff" border-radius="8px" padding="24px 16px">
        <mj-text font-size="24px" line-height="32px" font-weight="bold" color="#18181b">Hi *|FNAME|*, meet *|FEATURE|*</mj-text>
        <mj-text>We have been working on something you asked for: *|FEATURE|* are now part of every *|COMPANY|* workspace, at no extra cost.</mj-text>
        <mj-text>Invite your team, keep your files in one place and see who changed what.</mj-text>
        <mj-button href="*|URL|*" background-color="#4f46e5" border-radius="6px" font-weight="bold" align="left">See What's New</mj-button>
      </mj-column>
    </mj-section>
    <mj-section padding="16px 0 32px">
      <mj-column>
        <mj-text align="center" font-size="12px" line-height="18px" color="#52525b">You receive this because you have a *|COMPANY|* account. <a href="*|UNSUB|*" style="color: #52525b;">Unsubscribe</a></mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>
`;

export const announcement: StarterTemplate[] = [
  {
    id: 'announcement-html',
    name: 'Announcement',
    format: 'html',
    syntax: 'mailchimp',
    subject,
    source: html,
    data,
  },
  {
    id: 'announcement-mjml',
    name: 'Announcement',
    format: 'mjml',
    syntax: 'mailchimp',
    subject,
    source: mjml,
    data,
  },
];
