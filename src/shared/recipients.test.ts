import { describe, expect, it } from 'vitest';
import { asciiSearchForm, parseRecipients } from './recipients.ts';

describe('parseRecipients', () => {
  it('splits on commas, trims, drops empties and duplicates', () => {
    expect(parseRecipients('a@x.com, , b@y.com')).toEqual({ ok: true, recipients: ['a@x.com', 'b@y.com'] });
    expect(parseRecipients(' a@x.com ,A@X.com,a@x.com')).toEqual({ ok: true, recipients: ['a@x.com'] });
  });

  it('allows five and rejects six', () => {
    const five = ['1', '2', '3', '4', '5'].map((n) => `u${n}@x.com`);
    expect(parseRecipients(five.join(','))).toMatchObject({ ok: true });
    expect(parseRecipients([...five, 'u6@x.com'].join(','))).toEqual({ ok: false, reason: 'too_many' });
  });

  it('takes an internationalised domain in its ASCII form, and names what was written when it is no domain', () => {
    expect(parseRecipients('ann@bücher.example, ANN@xn--bcher-kva.example, ken@例え.テスト')).toEqual({
      ok: true,
      recipients: ['ann@xn--bcher-kva.example', 'ken@xn--r8jz45g.xn--zckzah'],
    });
    // A URL would read these as a port, a path or an escape; a local part that is not ASCII needs
    // SMTPUTF8 of every server on the way.
    for (const address of [
      'ann@bücher.example/x',
      'ann@bü:80',
      'ann@b%C3%BC.example',
      'ánn@x.com',
      'ann@bücher',
    ])
      expect(parseRecipients(address)).toEqual({ ok: false, reason: 'invalid', invalid: address });
  });

  it('reports missing when nothing is left', () => {
    expect(parseRecipients(' , ,')).toEqual({ ok: false, reason: 'missing' });
  });

  it.each([
    '"quoted"@x.com',
    'Name <a@x.com>',
    '<a@x.com>',
    'group: a@x.com;',
    'a@x.com\r\nBcc: c@z.com',
    'a@x.com\nb@y.com',
    'a@x.com (comment)',
    'a@localhost',
    'a@@x.com',
    'a b@x.com',
    'a@-x.com',
    '.a@x.com',
  ])('rejects %j', (input) => {
    expect(parseRecipients(input)).toMatchObject({ ok: false, reason: 'invalid' });
  });
});

describe('asciiSearchForm', () => {
  it('gives the ASCII form of an address, a domain or a label, and nothing for ASCII or what has none', () => {
    expect(asciiSearchForm('ann@bücher.example')).toBe('ann@xn--bcher-kva.example');
    expect(asciiSearchForm('Bücher.example')).toBe('xn--bcher-kva.example');
    expect(asciiSearchForm('bücher')).toBe('xn--bcher-kva');
    expect(asciiSearchForm('ann@example.com')).toBeUndefined();
    expect(asciiSearchForm('Grüße an alle')).toBeUndefined();
  });
});
