import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({}, '/srv/app');
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      publicUrl: 'http://localhost:3000',
      dataDir: '/srv/app/data',
      databaseUrl: undefined,
      smtpUrl: undefined,
      mailFrom: 'Proofmail <no-reply@localhost>',
      freeMonthlyLimit: 10,
      proMonthlyLimit: 10000,
      stripe: undefined,
      google: undefined,
      github: undefined,
      abuseEmail: 'abuse@localhost',
      supportEmail: 'support@localhost',
    });
  });

  it('names every invalid variable in one error', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'abc', FREE_MONTHLY_LIMIT: '-1', DATABASE_URL: 'mysql://x' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain('PORT');
    expect(message).toContain('FREE_MONTHLY_LIMIT');
    expect(message).toContain('DATABASE_URL');
    expect((error as ConfigError).problems).toHaveLength(3);
  });

  it('requires OAuth ids and secrets in pairs', () => {
    expect(() => loadConfig({ GOOGLE_CLIENT_ID: 'id' })).toThrow(/GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET/);
  });

  it('derives the abuse and support addresses from MAIL_FROM', () => {
    const c = loadConfig({ MAIL_FROM: 'Proofmail <hello@proofmail.app>' });
    expect(c.abuseEmail).toBe('abuse@proofmail.app');
    expect(c.supportEmail).toBe('support@proofmail.app');
  });

  it('rejects a CORS origin that is not an http(s) origin', () => {
    expect(() => loadConfig({ CORS_ORIGINS: 'javascript:alert(1)' })).toThrow(/CORS_ORIGINS/);
  });

  it('TRUST_PROXY is off by default, a hop count, or a list of proxy addresses and ranges', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    for (const off of ['false', '0', 'off', ' '])
      expect(loadConfig({ TRUST_PROXY: off }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8,loopback' }).trustProxy).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
  });

  it('refuses TRUST_PROXY=true, which would believe the client-written left-most address, and bad entries', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(
      /TRUST_PROXY: "true" would trust any X-Forwarded-For the client writes; set the number of proxies/,
    );
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33,proxy.internal' })).toThrow(
      /TRUST_PROXY: "10.0.0.0\/33", "proxy.internal" is not a proxy count/,
    );
    expect(() => loadConfig({ TRUST_PROXY: '11' })).toThrow(/more than 10/);
  });

  it('opens the dev mailbox by default only when PUBLIC_URL is a loopback address', () => {
    expect(loadConfig({}).devMailbox).toBe(true);
    expect(loadConfig({ PUBLIC_URL: 'http://127.0.0.1:4000' }).devMailbox).toBe(true);
    expect(loadConfig({ PUBLIC_URL: 'http://[::1]:4000' }).devMailbox).toBe(true);
    expect(loadConfig({ PUBLIC_URL: 'https://proofmail.example' }).devMailbox).toBe(false);
    expect(loadConfig({ PUBLIC_URL: 'https://proofmail.example', DEV_MAILBOX: 'on' }).devMailbox).toBe(true);
    expect(loadConfig({ DEV_MAILBOX: 'off' }).devMailbox).toBe(false);
    expect(() => loadConfig({ DEV_MAILBOX: 'yes' })).toThrow(/DEV_MAILBOX/);
  });
});
