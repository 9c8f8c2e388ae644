import type { Check, Finding } from '../../shared/contract/checks.ts';
import { checkOf, type StaticCheckContext } from './check-input.ts';

/**
 * Gmail clips a message whose encoded size passes about 102 KB (it shows "[Message clipped]" and
 * hides the rest, the unsubscribe link with it). The size counted is the MIME message as it leaves
 * (`bytes.message`), headers and both parts included. KB here is 1,024 bytes, as Gmail counts.
 */
export const GMAIL_CLIP_BYTES = 102 * 1024;
export const SIZE_WARNING_BYTES = 90 * 1024;

export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

export function checkSize({ input }: StaticCheckContext): Check {
  const size = input.bytes.message;
  const headroom = GMAIL_CLIP_BYTES - size;
  const findings: Finding[] = [];
  if (size >= GMAIL_CLIP_BYTES) {
    findings.push({
      severity: 'error',
      message: `${kb(size)}: over Gmail's 102 KB, by ${kb(-headroom)}. Gmail will clip this email.`,
      hint: 'Remove unused CSS, comments and whitespace, or shorten the content; move long sections to a web page.',
    });
  } else if (size >= SIZE_WARNING_BYTES) {
    findings.push({
      severity: 'warning',
      message: `${kb(size)} of Gmail's 102 KB: only ${kb(headroom)} to spare before Gmail clips it.`,
      hint: 'Trim unused CSS and markup now: tracking parameters and personalisation add bytes when it is sent for real.',
    });
  } else {
    findings.push({
      severity: 'info',
      message: `${kb(size)} of Gmail's 102 KB: ${kb(headroom)} to spare.`,
      hint: 'Gmail clips messages over 102 KB.',
    });
  }
  return checkOf('size', findings);
}
