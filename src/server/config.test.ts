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
});
