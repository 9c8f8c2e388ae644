/**
 * System mail (accounts): typed functions that render `{ subject, html, text }`.
 *
 * Layout rules for mail clients: tables and inline styles only (no external CSS, no scripts, no
 * images), explicit colours on every block so clients that force a dark theme still show a
 * readable card, and a prefers-color-scheme block for clients that honour it. Every interpolated
 * value is escaped; links are built from PUBLIC_URL only (never a request's Host header).
 */

export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
}

const PRODUCT = 'Proofmail';

export function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

export function verifyLink(publicUrl: string, token: string): string {
  return `${publicUrl}/verify?token=${encodeURIComponent(token)}`;
}

export function resetLink(publicUrl: string, token: string): string {
  return `${publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
}

export function cancelEmailChangeLink(publicUrl: string, token: string): string {
  return `${publicUrl}/cancel-email-change?token=${encodeURIComponent(token)}`;
}

/** "21 November 2025 at 21:49 UTC": unambiguous for a reader anywhere. */
export function formatUtc(date: Date): string {
  const formatted = new Intl.DateTimeFormat('en-GB', {
    timeZone: 'UTC',
    dateStyle: 'long',
    timeStyle: 'short',
  }).format(date);
  return `${formatted} UTC`;
}

interface Block {
  /** Plain text; escaped for HTML. */
  text: string;
  muted?: boolean;
}

interface LayoutOptions {
  publicUrl: string;
  /** Hidden preview line shown by inbox lists. */
  preheader: string;
  heading: string;
  blocks: Block[];
  button?: { label: string; url: string };
  /** Label/value rows (sign-in details). */
  details?: [string, string][];
  footer: string;
}

const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";

function renderHtml(o: LayoutOptions): string {
  const paragraphs = o.blocks
    .map(
      (b) =>
        `<p class="pm-${b.muted ? 'muted' : 'text'}" style="margin:0 0 16px;font:${b.muted ? '14px/22px' : '16px/24px'} ${FONT};color:${b.muted ? '#6b7280' : '#1f2937'};">${escapeHtml(b.text)}</p>`,
    )
    .join('\n');
  const details = o.details?.length
    ? `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin:0 0 20px;border-collapse:collapse;">
${o.details
  .map(
    ([label, value]) =>
      `<tr><td class="pm-muted" style="padding:6px 12px 6px 0;font:14px/20px ${FONT};color:#6b7280;white-space:nowrap;vertical-align:top;">${escapeHtml(label)}</td><td class="pm-text" style="padding:6px 0;font:14px/20px ${FONT};color:#1f2937;word-break:break-word;">${escapeHtml(value)}</td></tr>`,
  )
  .join('\n')}
</table>`
    : '';
  const button = o.button
    ? `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:8px 0 24px;">
<tr><td bgcolor="#4f46e5" style="border-radius:8px;background:#4f46e5;">
<a href="${escapeHtml(o.button.url)}" target="_blank" rel="noopener" style="display:inline-block;padding:12px 24px;font:600 16px/20px ${FONT};color:#ffffff;text-decoration:none;border-radius:8px;">${escapeHtml(o.button.label)}</a>
</td></tr>
</table>
<p class="pm-muted" style="margin:0 0 16px;font:13px/20px ${FONT};color:#6b7280;">If the button does not work, copy this link into your browser:<br><a class="pm-link" href="${escapeHtml(o.button.url)}" style="color:#4f46e5;word-break:break-all;">${escapeHtml(o.button.url)}</a></p>`
    : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="supported-color-schemes" content="light dark">
<title>${escapeHtml(o.heading)}</title>
<style>
@media (prefers-color-scheme: dark) {
  .pm-body { background:#111827 !important; }
  .pm-card { background:#1f2937 !important; border-color:#374151 !important; }
  .pm-text, .pm-heading { color:#f3f4f6 !important; }
  .pm-muted { color:#9ca3af !important; }
  .pm-link, .pm-brand { color:#a5b4fc !important; }
}
</style>
</head>
<body class="pm-body" style="margin:0;padding:0;background:#f3f4f6;">
<div style="display:none;max-height:0;overflow:hidden;opacity:0;">${escapeHtml(o.preheader)}</div>
<table role="presentation" class="pm-body" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="#f3f4f6" style="background:#f3f4f6;">
<tr><td align="center" style="padding:32px 16px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:560px;">
<tr><td class="pm-brand" style="padding:0 0 16px;font:700 20px/28px ${FONT};color:#4f46e5;">${PRODUCT}</td></tr>
<tr><td class="pm-card" bgcolor="#ffffff" style="background:#ffffff;border:1px solid #e5e7eb;border-radius:12px;padding:32px;">
<h1 class="pm-heading" style="margin:0 0 16px;font:700 22px/30px ${FONT};color:#111827;">${escapeHtml(o.heading)}</h1>
${paragraphs}
${details}
${button}
</td></tr>
<tr><td class="pm-muted" style="padding:16px 8px 0;font:12px/18px ${FONT};color:#6b7280;">${escapeHtml(o.footer)}<br><a href="${escapeHtml(o.publicUrl)}" style="color:#6b7280;">${escapeHtml(o.publicUrl)}</a></td></tr>
</table>
</td></tr>
</table>
</body>
</html>`;
}

function renderText(o: LayoutOptions): string {
  const lines = [o.heading, ''];
  for (const b of o.blocks) lines.push(b.text, '');
  if (o.details?.length) {
    for (const [label, value] of o.details) lines.push(`${label}: ${value}`);
    lines.push('');
  }
  if (o.button) lines.push(`${o.button.label}: ${o.button.url}`, '');
  lines.push('--', `${o.footer}`, o.publicUrl);
  return lines.join('\n');
}

function render(subject: string, o: LayoutOptions): RenderedMail {
  return { subject, html: renderHtml(o), text: renderText(o) };
}

const AUTOMATED = `You received this automated message because of activity on your ${PRODUCT} account.`;

export function verificationMail(p: { publicUrl: string; token: string }): RenderedMail {
  return render(`Verify your email for ${PRODUCT}`, {
    publicUrl: p.publicUrl,
    preheader: 'Confirm your email address to start sending test emails.',
    heading: 'Verify your email address',
    blocks: [
      {
        text: `Welcome to ${PRODUCT}! Confirm that this is your email address to start sending test emails.`,
      },
      { text: 'This link expires in 24 hours and can be used once.', muted: true },
    ],
    button: { label: 'Verify email', url: verifyLink(p.publicUrl, p.token) },
    footer: `If you did not create a ${PRODUCT} account, you can ignore this email.`,
  });
}

export function passwordResetMail(p: { publicUrl: string; token: string }): RenderedMail {
  return render(`Reset your ${PRODUCT} password`, {
    publicUrl: p.publicUrl,
    preheader: 'Choose a new password for your account.',
    heading: 'Reset your password',
    blocks: [
      {
        text: 'Someone asked to reset the password of your account. Choose a new password with the button below.',
      },
      {
        text: 'This link expires in 30 minutes and can be used once. Resetting signs you out everywhere and revokes your API keys.',
        muted: true,
      },
    ],
    button: { label: 'Reset password', url: resetLink(p.publicUrl, p.token) },
    footer: 'If you did not ask for this, ignore this email: your password stays the same.',
  });
}

export function emailChangeVerificationMail(p: {
  publicUrl: string;
  token: string;
  newEmail: string;
}): RenderedMail {
  return render(`Confirm your new email for ${PRODUCT}`, {
    publicUrl: p.publicUrl,
    preheader: 'Confirm this address to finish changing your email.',
    heading: 'Confirm your new email address',
    blocks: [
      { text: `Confirm that ${p.newEmail} should become the email address of your ${PRODUCT} account.` },
      {
        text: 'This link expires in 24 hours. After confirming, you will be signed out and can sign in with the new address.',
        muted: true,
      },
    ],
    button: { label: 'Confirm new email', url: verifyLink(p.publicUrl, p.token) },
    footer: 'If you did not ask for this change, ignore this email: nothing changes until the link is used.',
  });
}

/**
 * To the old address when an email change is asked for, with a "this wasn't me" link that
 * cancels the change (or puts this address back) and signs out everywhere.
 */
export function emailChangeNoticeMail(p: {
  publicUrl: string;
  newEmail: string;
  time: Date;
  cancelToken: string;
}): RenderedMail {
  return render(`Your ${PRODUCT} email address is being changed`, {
    publicUrl: p.publicUrl,
    preheader: 'A change of your account email address was requested.',
    heading: 'Email change requested',
    blocks: [
      {
        text: `A change of your account's email address to ${p.newEmail} was requested. It takes effect once the new address is confirmed.`,
      },
      {
        text: 'If this was not you, use the button below. It cancels the change (or puts this address back if the change was already confirmed), signs out every device and revokes your API keys. Then reset your password.',
      },
      { text: 'This link works for 7 days.', muted: true },
    ],
    details: [['Requested', formatUtc(p.time)]],
    button: { label: "This wasn't me", url: cancelEmailChangeLink(p.publicUrl, p.cancelToken) },
    footer: AUTOMATED,
  });
}

/** To an address someone tried to move another account to, while it already has an account. */
export function emailInUseNoticeMail(p: { publicUrl: string; time: Date }): RenderedMail {
  return render(`Someone tried to use this address on ${PRODUCT}`, {
    publicUrl: p.publicUrl,
    preheader: 'Another account asked to change its email address to this one.',
    heading: 'This address already has an account',
    blocks: [
      {
        text: `Someone signed in to another ${PRODUCT} account asked to change its email address to this one. This address already belongs to an account, so nothing changed.`,
      },
      {
        text: 'If it was you, sign in with this address instead. If not, you can ignore this email: your account is not affected.',
      },
    ],
    details: [['Requested', formatUtc(p.time)]],
    button: { label: 'Sign in', url: `${p.publicUrl}/signin` },
    footer: AUTOMATED,
  });
}

export function loginAlertMail(p: {
  publicUrl: string;
  time: Date;
  ip: string;
  browser: string;
}): RenderedMail {
  return render(`New sign-in to your ${PRODUCT} account`, {
    publicUrl: p.publicUrl,
    preheader: `New sign-in from ${p.browser}.`,
    heading: 'New sign-in to your account',
    blocks: [{ text: 'Your account was just signed in to. If this was you, there is nothing to do.' }],
    details: [
      ['Time', formatUtc(p.time)],
      ['IP address', p.ip],
      ['Browser', p.browser],
    ],
    button: { label: 'Not you? Reset your password', url: `${p.publicUrl}/forgot-password` },
    footer: `${AUTOMATED} You can turn sign-in alerts off in your account settings.`,
  });
}

export function passwordChangedMail(p: { publicUrl: string; time: Date }): RenderedMail {
  return render(`Your ${PRODUCT} password was changed`, {
    publicUrl: p.publicUrl,
    preheader: 'The password of your account was changed.',
    heading: 'Your password was changed',
    blocks: [
      {
        text: 'The password of your account was just changed. Other devices that were signed in have been signed out.',
      },
      { text: 'If you did not do this, reset your password right away.' },
    ],
    details: [['Changed', formatUtc(p.time)]],
    button: { label: 'Reset password', url: `${p.publicUrl}/forgot-password` },
    footer: AUTOMATED,
  });
}

/** To the owner when an API key is created (src/server/features/api-keys/api-keys.service.ts). */
export function apiKeyCreatedMail(p: {
  publicUrl: string;
  name: string;
  prefix: string;
  time: Date;
}): RenderedMail {
  return render(`A new API key was created for your ${PRODUCT} account`, {
    publicUrl: p.publicUrl,
    preheader: `API key "${p.name}" was created.`,
    heading: 'New API key',
    blocks: [
      {
        text: `An API key named "${p.name}" was just created for your account. It can send, read, share and delete your emails until it is revoked.`,
      },
      { text: 'If you did not do this, revoke it in Account → API Keys, then reset your password.' },
    ],
    details: [
      ['Key', `${p.prefix}…`],
      ['Created', formatUtc(p.time)],
    ],
    button: { label: 'Review API keys', url: `${p.publicUrl}/app/account` },
    footer: AUTOMATED,
  });
}

/** A reviewer's decision on a shared email (src/server/features/email/review.service.ts). */
export function reviewDecisionMail(p: {
  publicUrl: string;
  emailId: string;
  subject: string;
  version: number;
  name: string;
  decision: 'approved' | 'changes_requested';
  comment: string | null;
  time: Date;
}): RenderedMail {
  // The reviewer typed the name: one line, no control characters, in the subject.
  const name = p.name.replace(/[\p{Cc}\p{Cf}\u2028\u2029]+/gu, ' ').trim();
  const title = p.subject || 'No Subject';
  const what = p.decision === 'approved' ? 'approved' : 'requested changes to';
  return render(`${name} ${what} “${title}” (v${p.version})`, {
    publicUrl: p.publicUrl,
    preheader: p.decision === 'approved' ? `Approved: v${p.version}` : `Changes requested: v${p.version}`,
    heading:
      p.decision === 'approved'
        ? `Approved: version ${p.version}`
        : `Changes requested: version ${p.version}`,
    blocks: [
      { text: `${name} ${what} version ${p.version} of “${title}” through its public link.` },
      ...(p.comment ? [{ text: `“${p.comment}”` }] : []),
    ],
    details: [
      ['Reviewer', name],
      ['Version', `v${p.version}`],
      ['Time', formatUtc(p.time)],
    ],
    button: { label: 'Open the email', url: `${p.publicUrl}/app/email/${encodeURIComponent(p.emailId)}` },
    footer: `${AUTOMATED} You can turn review notifications off in your account settings.`,
  });
}
