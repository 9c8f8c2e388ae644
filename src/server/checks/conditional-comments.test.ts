import { describe, expect, it } from 'vitest';
import { outlookReads } from './conditional-comments.ts';

describe('conditional comments, as classic Outlook reads them', () => {
  it.each([
    ['mso', true],
    ['mso | IE', true],
    ['(gte mso 9)|(IE)', true],
    ['gte mso 9', true],
    ['gte vml 1', true],
    ['mso 16', true],
    ['!mso', false],
    ['!mso | IE', false],
    ['IE', false],
    ['lte mso 11', false],
    ['mso 12', false],
    ['(mso)&(!IE)', true],
    ['!(mso | IE)', false],
    ['IEMobile', false],
  ])('[if %s] is %s', (condition, reads) => expect(outlookReads(condition)).toBe(reads));
  it('takes a condition it cannot read as false', () => {
    for (const broken of ['', '(mso', 'mso)', 'gte', 'mso &', '!', 'gte 9 mso'])
      expect(outlookReads(broken)).toBe(false);
  });
});
