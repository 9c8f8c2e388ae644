import type { TargetClientId } from '../../shared/contract/checks.ts';

/**
 * Where each target client's support lives in the caniemail data (family, platform). caniemail has
 * no row for the new Outlook for Windows: it renders as Outlook.com does (the same web engine, which
 * caniemail's own tests of the new Outlook were recorded against), so it reads Outlook.com's row.
 * The `windows-mail` row is the Windows 10 Mail app and its Word engine
 * (docs/decisions/0064-vendored-caniemail-data.md).
 */
export const CANIEMAIL_KEYS: Record<TargetClientId, readonly [family: string, platform: string]> = {
  'gmail-web': ['gmail', 'desktop-webmail'],
  'gmail-ios': ['gmail', 'ios'],
  'gmail-android': ['gmail', 'android'],
  'apple-mail-macos': ['apple-mail', 'macos'],
  'apple-mail-ios': ['apple-mail', 'ios'],
  'outlook-windows': ['outlook', 'windows'],
  'outlook-windows-new': ['outlook', 'outlook-com'],
  'outlook-com': ['outlook', 'outlook-com'],
  'outlook-macos': ['outlook', 'macos'],
  'outlook-ios': ['outlook', 'ios'],
  'outlook-android': ['outlook', 'android'],
  'yahoo-web': ['yahoo', 'desktop-webmail'],
  'yahoo-ios': ['yahoo', 'ios'],
  'yahoo-android': ['yahoo', 'android'],
  'samsung-email': ['samsung-email', 'android'],
  'aol-web': ['aol', 'desktop-webmail'],
  thunderbird: ['thunderbird', 'windows'],
  'protonmail-web': ['protonmail', 'desktop-webmail'],
  'fastmail-web': ['fastmail', 'desktop-webmail'],
};

/** The one client that reads `<!--[if mso]>` conditionals (the Word engine). */
export const MSO_CLIENT: TargetClientId = 'outlook-windows';
