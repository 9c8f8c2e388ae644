import { describe, expect, it } from 'vitest';
import { backoffDelay } from './outbox-worker.ts';
import { classifySmtpError, cleanErrorText } from './smtp-outcome.ts';

describe('classifySmtpError', () => {
  it('5xx replies fail at once with the code and the server text', () => {
    const r = classifySmtpError(
      {
        code: 'EENVELOPE',
        responseCode: 550,
        response: '550 5.1.1 <x@y.z>: Recipient address rejected',
        message: "Can't send mail",
      },
      false,
    );
    expect(r).toEqual({
      status: 'failed',
      code: 550,
      message: '550 5.1.1 <x@y.z>: Recipient address rejected',
      uncertain: false,
    });
  });

  it('4xx replies are retried; a reply is never uncertain, even after the body was sent', () => {
    expect(
      classifySmtpError({ code: 'EMESSAGE', responseCode: 451, response: '451 4.3.0 Try later' }, true),
    ).toEqual({
      status: 'retry',
      code: 451,
      message: '451 4.3.0 Try later',
      uncertain: false,
    });
  });

  it('an authentication failure is our configuration: retried, not failed', () => {
    expect(
      classifySmtpError({ code: 'EAUTH', responseCode: 535, response: '535 5.7.8 Bad credentials' }, false)
        .status,
    ).toBe('retry');
  });

  it('connection errors and timeouts are retried; after the body started they are uncertain', () => {
    const refused = classifySmtpError(
      { code: 'ESOCKET', originalCode: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:1' },
      false,
    );
    expect(refused).toMatchObject({ status: 'retry', code: null, uncertain: false });
    expect(refused.message).toMatch(/refused the connection/);
    const greeting = classifySmtpError({ code: 'ETIMEDOUT', message: 'Greeting never received' }, false);
    expect(greeting).toMatchObject({
      status: 'retry',
      uncertain: false,
      message: 'The mail server did not send its greeting in time',
    });
    const lost = classifySmtpError(
      { code: 'ECONNECTION', message: 'Connection closed unexpectedly', command: 'CONN' },
      true,
    );
    expect(lost).toMatchObject({ status: 'retry', uncertain: true });
    expect(lost.message).toMatch(/may have accepted it/);
  });

  it('errors about the message itself fail without retrying', () => {
    expect(classifySmtpError({ code: 'EENVELOPE', message: 'No recipients defined' }, false).status).toBe(
      'failed',
    );
    expect(classifySmtpError({ code: 'EURLACCESS', message: 'Url access rejected' }, false).status).toBe(
      'failed',
    );
  });
});

describe('cleanErrorText', () => {
  it('keeps stored errors on one bounded line', () => {
    expect(cleanErrorText('550-5.1.1 first\r\n550 5.1.1 second\u0000')).toBe(
      '550-5.1.1 first 550 5.1.1 second',
    );
    expect(cleanErrorText('x'.repeat(5_000))).toHaveLength(2_000);
  });
});

describe('backoffDelay', () => {
  const backoff = { baseMs: 1_000, maxMs: 60_000 };
  it('doubles per attempt, with jitter between half and all of it, and stops at the cap', () => {
    expect(backoffDelay(1, backoff, () => 0)).toBe(500);
    expect(backoffDelay(1, backoff, () => 1)).toBe(1_000);
    expect(backoffDelay(3, backoff, () => 1)).toBe(4_000);
    expect(backoffDelay(3, backoff, () => 0.5)).toBe(3_000);
    expect(backoffDelay(20, backoff, () => 1)).toBe(60_000);
  });
});
