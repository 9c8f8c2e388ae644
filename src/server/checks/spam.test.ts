import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSpamd, GTUBE } from '../../../tests/support/fake-spamd.ts';
import { freePort } from '../../../tests/support/free-port.ts';
import { checkSpam, parseSpamdResponse } from './spam.ts';

function message(body: string): string {
  return [
    'From: Proofmail <no-reply@proofmail.test>',
    'To: client@example.com',
    'Subject: Spring sale',
    'MIME-Version: 1.0',
    'Content-Type: text/html; charset=utf-8',
    '',
    `<p>${body}</p>`,
    '',
  ].join('\r\n');
}

let spamd: FakeSpamd;

beforeAll(async () => {
  spamd = await FakeSpamd.start();
});

afterAll(async () => {
  await spamd.close();
});

describe('checkSpam against a spamd on loopback', () => {
  it('sends REPORT SPAMC/1.5 with the exact Content-length of the message as it leaves', async () => {
    spamd.mode = 'normal';
    const raw = Buffer.from(message('Grüße aus Zürich ✓'), 'utf8');
    await checkSpam(raw, { spamdUrl: spamd.url });
    const req = spamd.requests.at(-1)!;
    expect(req.method).toBe('REPORT');
    expect(req.version).toBe('SPAMC/1.5');
    expect(req.headers['content-length']).toBe(String(raw.length));
    expect(req.body.equals(raw)).toBe(true);
  });

  it('is an error with the score, the threshold and every rule when SpamAssassin says spam', async () => {
    spamd.mode = 'normal';
    const check = await checkSpam(message(GTUBE), { spamdUrl: spamd.url });
    expect(check.id).toBe('spam');
    expect(check.status).toBe('error');
    expect(check.findings[0]).toMatchObject({
      severity: 'error',
      message: 'SpamAssassin would mark this email as spam: it scores 1000.0, and 5.0 is spam.',
    });
    expect(check.findings[1]).toMatchObject({
      severity: 'info',
      message: 'GTUBE (+1000.0): BODY: Generic Test for Unsolicited Bulk Email',
    });
    // Rules that take nothing away or add nothing are not listed.
    expect(check.findings).toHaveLength(2);
  });

  it('warns above half the threshold, listing the rules with their (wrapped) descriptions and hints', async () => {
    spamd.mode = 'normal';
    const check = await checkSpam(message('BORDERLINE offer'), { spamdUrl: spamd.url });
    expect(check.status).toBe('warning');
    expect(check.findings[0]!.message).toBe(
      'SpamAssassin scores this email 3.1, more than half of the spam threshold (5.0).',
    );
    expect(check.findings.slice(1).map((f) => f.message)).toEqual([
      'MIME_HTML_ONLY (+1.6): BODY: Message only has text/html MIME parts',
      'HTML_IMAGE_RATIO_02 (+1.4): BODY: HTML has a low ratio of text to image area',
      'HTML_MESSAGE (+0.1): BODY: HTML included in message',
    ]);
    expect(check.findings[1]!.hint).toMatch(/plain-text part/);
  });

  it('passes with an info finding when the score is low', async () => {
    spamd.mode = 'normal';
    const check = await checkSpam(message('Our spring newsletter'), { spamdUrl: spamd.url });
    expect(check.status).toBe('pass');
    expect(check.findings[0]).toMatchObject({
      severity: 'info',
      message: 'SpamAssassin scores this email 0.1; 5.0 is spam.',
    });
  });

  it('is skipped, in one line, without SPAMD_URL', async () => {
    const check = await checkSpam(message('x'), { spamdUrl: null });
    expect(check).toMatchObject({ id: 'spam', title: 'Spam Score', status: 'skipped' });
    expect(check.findings).toEqual([
      expect.objectContaining({
        severity: 'info',
        message: 'SpamAssassin is not configured on this server (set SPAMD_URL).',
      }),
    ]);
  });

  it('is skipped when spamd refuses the connection, stays silent, or answers an error or garbage', async () => {
    const closed = await freePort();
    const refused = await checkSpam(message('x'), { spamdUrl: `spamd://127.0.0.1:${closed}` });
    expect(refused.status).toBe('skipped');
    expect(refused.findings[0]!.message).toBe(
      'SpamAssassin could not be reached (connection refused). The email was not scored.',
    );

    spamd.mode = 'silent';
    const started = Date.now();
    const silent = await checkSpam(message('x'), { spamdUrl: spamd.url, timeoutMs: 300 });
    expect(silent.status).toBe('skipped');
    expect(silent.findings[0]!.message).toBe(
      'SpamAssassin did not answer in time. The email was not scored.',
    );
    expect(Date.now() - started).toBeLessThan(2_000);

    const aborted = await checkSpam(message('x'), { spamdUrl: spamd.url, signal: AbortSignal.timeout(200) });
    expect(aborted.status).toBe('skipped');

    spamd.mode = 'error';
    const error = await checkSpam(message('x'), { spamdUrl: spamd.url });
    expect(error.status).toBe('skipped');
    expect(error.findings[0]!.message).toBe(
      'SpamAssassin answered with an error (74 Input/output error). The email was not scored.',
    );

    spamd.mode = 'garbage';
    const garbage = await checkSpam(message('x'), { spamdUrl: spamd.url });
    expect(garbage.status).toBe('skipped');
    expect(garbage.findings[0]!.message).toMatch(/not the spamd protocol/);
  });
});

describe('parseSpamdResponse', () => {
  it('reads the CHECK/SYMBOLS answers of the protocol document', () => {
    const symbols = parseSpamdResponse(
      'SPAMD/1.1 0 EX_OK\r\nContent-length: 27\r\nSpam: True ; 1000.0 / 5.0\r\n\r\nGTUBE,NO_RECEIVED,NO_RELAYS',
    );
    expect(symbols).toEqual({
      isSpam: true,
      score: 1000,
      threshold: 5,
      rules: ['GTUBE', 'NO_RECEIVED', 'NO_RELAYS'].map((name) => ({ name, points: 0, description: '' })),
    });
    expect(parseSpamdResponse('SPAMD/1.1 0 EX_OK\r\nSpam: No ; -1.5 / 5.0\r\n\r\n')).toEqual({
      isSpam: false,
      score: -1.5,
      threshold: 5,
      rules: [],
    });
    expect(parseSpamdResponse('SPAMD/1.1 0 EX_OK\r\n\r\n')).toEqual({
      error: 'SpamAssassin did not give a score.',
    });
  });
});
