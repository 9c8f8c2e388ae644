import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, defaultPublicUrl, loadConfig, loadEnvFile } from './config.ts';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({}, '/srv/app');
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      publicUrl: 'http://localhost:3000',
      publicUrlDerived: true,
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

describe('SPAMD_URL and EGRESS_ALLOW_LOOPBACK', () => {
  it('SPAMD_URL is off by default, takes spamd:// or tcp:// with 783 as the default port', () => {
    expect(loadConfig({}).spamdUrl).toBeNull();
    expect(loadConfig({ SPAMD_URL: 'spamd://127.0.0.1:783' }).spamdUrl).toBe('spamd://127.0.0.1:783');
    expect(loadConfig({ SPAMD_URL: 'tcp://spamassassin:7830' }).spamdUrl).toBe('spamd://spamassassin:7830');
    expect(loadConfig({ SPAMD_URL: 'spamd://[::1]' }).spamdUrl).toBe('spamd://[::1]:783');
    for (const bad of ['http://127.0.0.1:783', 'spamd://', '127.0.0.1:783', 'spamd://host:783/path']) {
      expect(() => loadConfig({ SPAMD_URL: bad })).toThrow(/SPAMD_URL: must be spamd:\/\/host:port/);
    }
  });

  it('EGRESS_ALLOW_LOOPBACK is honoured only with NODE_ENV=test, and refused loudly otherwise', () => {
    expect(loadConfig({}).egressAllowLoopback).toBe(false);
    expect(loadConfig({ EGRESS_ALLOW_LOOPBACK: '1', NODE_ENV: 'test' }).egressAllowLoopback).toBe(true);
    expect(loadConfig({ EGRESS_ALLOW_LOOPBACK: '0', NODE_ENV: 'production' }).egressAllowLoopback).toBe(
      false,
    );
    expect(() => loadConfig({ EGRESS_ALLOW_LOOPBACK: '1', NODE_ENV: 'production' })).toThrow(
      /EGRESS_ALLOW_LOOPBACK: only for tests/,
    );
    expect(() => loadConfig({ EGRESS_ALLOW_LOOPBACK: '1' })).toThrow(/only for tests/);
    expect(() => loadConfig({ EGRESS_ALLOW_LOOPBACK: 'yes', NODE_ENV: 'test' })).toThrow(/must be 1 or 0/);
  });
});

describe('PUBLIC_URL', () => {
  it('is derived from PORT and HOST when unset, so mailed links name the port the server listens on', () => {
    expect(loadConfig({ PORT: '4968' }).publicUrl).toBe('http://localhost:4968');
    expect(loadConfig({ PORT: '4968', HOST: '0.0.0.0' }).publicUrl).toBe('http://localhost:4968');
    expect(loadConfig({ PORT: '8080', HOST: 'proofmail.lan' }).publicUrl).toBe('http://proofmail.lan:8080');
    expect(loadConfig({ PORT: '80', HOST: '192.168.1.20' }).publicUrl).toBe('http://192.168.1.20');
    expect(loadConfig({ PORT: '4968', HOST: 'fd00::5' }).publicUrl).toBe('http://[fd00::5]:4968');
    expect(loadConfig({ PORT: '4968', HOST: '::1' }).publicUrl).toBe('http://localhost:4968');
  });

  it('is taken as set, without a trailing slash, and then not derived', () => {
    const c = loadConfig({ PORT: '4968', PUBLIC_URL: 'https://mail.example.com/' });
    expect(c.publicUrl).toBe('https://mail.example.com');
    expect(c.publicUrlDerived).toBe(false);
  });

  it('asks for PUBLIC_URL when HOST cannot be part of a URL', () => {
    expect(defaultPublicUrl('not a host', 3000)).toBeUndefined();
    expect(() => loadConfig({ HOST: 'not a host' })).toThrow(/HOST: .*set PUBLIC_URL/);
  });
});

const root = path.resolve(import.meta.dirname, '../..');

/**
 * loadEnvFile + loadConfig as `npm start` runs them, in working directory `cwd` with only `env`
 * in the environment (process.env is put back afterwards): the config, or the error message.
 */
function configIn(cwd: string, env: Record<string, string> = {}): Record<string, unknown> {
  const saved = { ...process.env };
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, env);
  try {
    const file = loadEnvFile(cwd) ?? null;
    return { file, ...loadConfig(process.env, cwd) };
  } catch (err) {
    return { error: (err as Error).message };
  } finally {
    for (const key of Object.keys(process.env)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

describe('.env', () => {
  const dirs: string[] = [];
  const dirWith = (files: Record<string, string>) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proofmail-env-'));
    dirs.push(dir);
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  const dotEnv = [
    '# a comment',
    'PORT=4968',
    'MAIL_FROM="Test Mail <tests@example.org>"',
    'FREE_MONTHLY_LIMIT=25',
    '',
  ].join('\n');

  it('is read at start; the real environment wins over it, even with an empty value', () => {
    const dir = dirWith({ '.env': dotEnv });
    const fromFile = configIn(dir);
    expect(fromFile).toMatchObject({
      file: path.join(dir, '.env'),
      port: 4968,
      publicUrl: 'http://localhost:4968',
      mailFrom: 'Test Mail <tests@example.org>',
      freeMonthlyLimit: 25,
    });
    const overridden = configIn(dir, { PORT: '5000', FREE_MONTHLY_LIMIT: '' });
    expect(overridden).toMatchObject({
      port: 5000,
      publicUrl: 'http://localhost:5000',
      freeMonthlyLimit: 10,
    });
  });

  it('ENV_FILE names another file, ENV_FILE= reads none, and a missing named file is an error', () => {
    const dir = dirWith({ '.env': dotEnv, 'staging.env': 'PORT=7000\n' });
    expect(configIn(dir, { ENV_FILE: 'staging.env' })).toMatchObject({ port: 7000 });
    expect(configIn(dir, { ENV_FILE: '' })).toMatchObject({ file: null, port: 3000 });
    expect(configIn(dir, { ENV_FILE: 'nope.env' }).error).toMatch(/ENV_FILE: .*nope\.env does not exist/);
  });

  it('without a .env, only the environment counts', () => {
    expect(configIn(dirWith({}))).toMatchObject({ file: null, port: 3000 });
  });

  it('.env.example is a valid .env for Node and for a POSIX shell, and both read it alike', () => {
    const example = fs.readFileSync(path.join(root, '.env.example'), 'utf8');
    const dir = dirWith({ '.env': example });
    const names = [...example.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(20);
    // The shell's view: source it with `set -a` and print each variable.
    const shell = execFileSync(
      'sh',
      [
        '-c',
        `set -a; . ./.env; set +a; for n in ${names.join(' ')}; do printf '%s=%s\\0' "$n" "$(printenv "$n")"; done`,
      ],
      {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '' },
        encoding: 'utf8',
      },
    );
    const fromShell = Object.fromEntries(
      shell
        .split('\0')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
    // Node's view: util.parseEnv is the parser behind process.loadEnvFile.
    const fromNode = Object.fromEntries(Object.entries(parseEnv(example)).filter(([k]) => names.includes(k)));
    expect(fromNode).toEqual(fromShell);
    expect(fromNode.MAIL_FROM).toBe('Proofmail <no-reply@localhost>');
    // And the server accepts it as its whole configuration.
    expect(configIn(dir).error).toBeUndefined();
    expect(() => loadConfig(fromShell)).not.toThrow();
  });
});
