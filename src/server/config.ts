import fs from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { isLoopbackHostname } from './http/loopback.ts';

/**
 * The only reader of process.env (docs/architecture.md §4). Every variable is parsed once, here; an invalid
 * environment fails fast with one message that names every bad variable.
 */

const emptyToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const optionalString = z.preprocess(emptyToUndefined, z.string().optional());
const optionalUrl = z.preprocess(emptyToUndefined, z.url().optional());

const int = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(
    emptyToUndefined,
    z.coerce
      .number({ error: 'must be a whole number' })
      .int({ error: 'must be a whole number' })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` })
      .default(def),
  );

const mailbox = z
  .string()
  .refine((v) => /^(?:[^<>]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(v.trim()), {
    error: 'must be an address like "Name <user@example.com>" or "user@example.com"',
  });

const envSchema = z.object({
  PORT: int(3000, 0, 65535),
  HOST: z.preprocess(emptyToUndefined, z.string().default('127.0.0.1')),
  // Unset: derived from HOST and PORT (defaultPublicUrl).
  PUBLIC_URL: optionalUrl,
  DATA_DIR: z.preprocess(emptyToUndefined, z.string().default('./data')),
  DATABASE_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, { error: 'must be a postgres:// or postgresql:// URL' })
      .optional(),
  ),
  DATABASE_POOL_SIZE: int(10, 1, 200),
  SMTP_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^smtps?:\/\//, { error: 'must be an smtp:// or smtps:// URL' })
      .optional(),
  ),
  MAIL_FROM: z.preprocess(emptyToUndefined, mailbox.default('Proofmail <no-reply@localhost>')),
  MAIL_WORKERS: int(4, 0, 64),
  MAIL_LEASE_SECONDS: int(30, 2, 3600),
  SMTP_TIMEOUT_SCALE: z.preprocess(
    emptyToUndefined,
    z.coerce
      .number({ error: 'must be a number' })
      .positive({ error: 'must be greater than 0' })
      .max(100, { error: 'must be at most 100' })
      .default(1),
  ),
  FREE_MONTHLY_LIMIT: int(10, 0),
  PRO_MONTHLY_LIMIT: int(10_000, 0),
  FREE_SENDS_PER_MINUTE: int(5, 1),
  PRO_SENDS_PER_MINUTE: int(30, 1),
  PREVIEWS_PER_MINUTE: int(120, 1),
  PREPARE_PROCESSES: int(0, 0, 64),
  PREPARE_BUDGET_MS: int(10_000, 100, 600_000),
  SEARCH_BUDGET_MS: int(4_000, 50, 60_000),
  REQUEST_TIMEOUT_MS: int(60_000, 1_000, 600_000),
  STRIPE_SECRET_KEY: optionalString,
  STRIPE_WEBHOOK_SECRET: optionalString,
  STRIPE_PRICE_PRO_MONTHLY: optionalString,
  STRIPE_API_URL: optionalUrl,
  GOOGLE_CLIENT_ID: optionalString,
  GOOGLE_CLIENT_SECRET: optionalString,
  GOOGLE_AUTHORIZATION_URL: z.preprocess(
    emptyToUndefined,
    z.url().default('https://accounts.google.com/o/oauth2/v2/auth'),
  ),
  GOOGLE_TOKEN_URL: z.preprocess(emptyToUndefined, z.url().default('https://oauth2.googleapis.com/token')),
  GOOGLE_JWKS_URL: z.preprocess(
    emptyToUndefined,
    z.url().default('https://www.googleapis.com/oauth2/v3/certs'),
  ),
  GOOGLE_ISSUER: z.preprocess(emptyToUndefined, z.string().default('https://accounts.google.com')),
  GITHUB_CLIENT_ID: optionalString,
  GITHUB_CLIENT_SECRET: optionalString,
  GITHUB_AUTHORIZATION_URL: z.preprocess(
    emptyToUndefined,
    z.url().default('https://github.com/login/oauth/authorize'),
  ),
  GITHUB_TOKEN_URL: z.preprocess(
    emptyToUndefined,
    z.url().default('https://github.com/login/oauth/access_token'),
  ),
  GITHUB_API_URL: z.preprocess(emptyToUndefined, z.url().default('https://api.github.com')),
  CAPTCHA_PROVIDER: z.preprocess(emptyToUndefined, z.enum(['altcha', 'none']).default('altcha')),
  CAPTCHA_MAX_NUMBER: int(100_000, 10, 10_000_000),
  ABUSE_EMAIL: optionalString,
  SUPPORT_EMAIL: optionalString,
  CORS_ORIGINS: optionalString,
  TRUST_PROXY: optionalString,
  DEV_MAILBOX: z.preprocess(emptyToUndefined, z.enum(['auto', 'on', 'off']).default('auto')),
  SPAMD_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^(?:spamd|tcp):\/\/(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?\/?$/, {
        error: 'must be spamd://host:port or tcp://host:port (e.g. spamd://127.0.0.1:783)',
      })
      .optional(),
  ),
  EGRESS_ALLOW_LOOPBACK: optionalString,
  CHROMIUM_PATH: optionalString,
  PATH: optionalString,
  RENDER_PAGES: int(2, 1, 16),
  RENDER_BUDGET_MS: int(15_000, 1_000, 120_000),
  NODE_ENV: optionalString,
  LOG_LEVEL: z.preprocess(
    emptyToUndefined,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
});

export type Env = z.infer<typeof envSchema>;

export interface OAuthProviderConfig {
  clientId: string;
  clientSecret: string;
  authorizationUrl: string;
  tokenUrl: string;
}

export interface Config {
  port: number;
  host: string;
  /** The base of every link we mail or redirect to (PUBLIC_URL, else derived from HOST and PORT). */
  publicUrl: string;
  /** True when PUBLIC_URL was not set and publicUrl was derived from HOST and PORT. */
  publicUrlDerived: boolean;
  dataDir: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  smtpUrl: string | undefined;
  mailFrom: string;
  /** The domain of MAIL_FROM: it names our Message-IDs and the default abuse/support addresses. */
  mailDomain: string;
  mailWorkers: number;
  /** How long a worker's claim on a mail lasts without renewal (a dead worker's mail waits this long). */
  mailLeaseSeconds: number;
  /** Multiplies every SMTP wait of RFC 5321 §4.5.3.2 (docs/decisions/0040-smtp-timeouts-rfc-5321.md). */
  smtpTimeoutScale: number;
  freeMonthlyLimit: number;
  proMonthlyLimit: number;
  freeSendsPerMinute: number;
  proSendsPerMinute: number;
  /** Per-user cap on POST /api/email/preview (it spends nothing, but it costs a transform). */
  previewsPerMinute: number;
  /** Transform processes; 0 = one fewer than the cores, 2 to 4 (docs/decisions/0050-transform-process-pool.md). */
  prepareProcesses: number;
  /** Processing time one email's transforms may take before they are stopped (422). */
  prepareBudgetMs: number;
  /** The time one history search may run in PostgreSQL before it is stopped (422). */
  searchBudgetMs: number;
  /** The time a client has to send a whole request, its body included (408 beyond). */
  requestTimeoutMs: number;
  stripe:
    | {
        secretKey: string;
        webhookSecret: string | undefined;
        priceProMonthly: string | undefined;
        apiUrl: string | undefined;
      }
    | undefined;
  google: (OAuthProviderConfig & { jwksUrl: string; issuer: string }) | undefined;
  github: (OAuthProviderConfig & { apiUrl: string }) | undefined;
  captcha: { provider: 'altcha' | 'none'; maxNumber: number };
  abuseEmail: string;
  supportEmail: string;
  corsOrigins: string[];
  /**
   * Which X-Forwarded-For entries to believe (Fastify's trustProxy): false = none (the TCP peer
   * is the client), a number = that many proxies in front of the app, a list = the proxies'
   * addresses or CIDR ranges (docs/decisions/0030-trust-proxy-hops-or-addresses.md).
   */
  trustProxy: false | number | string[];
  /**
   * Whether /dev/mailbox may answer at all while the local catcher runs, and then only to clients
   * on this machine (docs/decisions/0029-dev-mailbox-local-clients-only.md). DEV_MAILBOX=auto
   * (the default) opens it only when PUBLIC_URL is a loopback address; `on` also otherwise; `off`
   * never.
   */
  devMailbox: boolean;
  /**
   * SpamAssassin's spamd for the checklist's spam check, as spamd://host:port (SPAMD_URL; default
   * port 783); null = the check is skipped (docs/decisions/0062-spam-check-spamd.md).
   */
  spamdUrl: string | null;
  /**
   * Tests only: the egress guard lets loopback addresses through (EGRESS_ALLOW_LOOPBACK=1, honoured
   * only with NODE_ENV=test; docs/decisions/0060-egress-guard.md).
   */
  egressAllowLoopback: boolean;
  /**
   * The renderer's Chromium (docs/decisions/0080-renderer-locked-down.md): CHROMIUM_PATH when set
   * (a missing file turns the renderer off, it never falls back), else null and the renderer looks
   * for chromium, chromium-browser or google-chrome on `searchPath`.
   */
  chromiumPath: string | null;
  /** The PATH the renderer searches for a Chromium when CHROMIUM_PATH is not set. */
  searchPath: string;
  /** Pages the renderer renders at once (RENDER_PAGES, default 2). */
  renderPages: number;
  /** Milliseconds one render may take, its requests included (RENDER_BUDGET_MS, default 15 s). */
  renderBudgetMs: number;
  logLevel: Env['LOG_LEVEL'];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** The domain part of "Name <user@domain>" or "user@domain". */
function mailDomain(address: string): string {
  const match = /@([^\s>]+)>?\s*$/.exec(address);
  return match?.[1] ?? 'localhost';
}

function originOf(url: string, variable: string, problems: string[]): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('protocol');
    return parsed.origin;
  } catch {
    problems.push(`${variable}: "${url}" is not an http(s) origin`);
    return undefined;
  }
}

/** Listen addresses a browser on this machine reaches as localhost. */
const LOCAL_OR_ANY_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|::1?|\[::1?\]|0\.0\.0\.0)$/i;

/**
 * The PUBLIC_URL a server listening on HOST:PORT has when none is set: http://localhost:PORT for a
 * loopback or all-interfaces address (what a browser on this machine opens), else http://HOST:PORT.
 * Undefined when HOST cannot be part of a URL.
 */
export function defaultPublicUrl(host: string, port: number): string | undefined {
  const h = host.trim();
  const name = LOCAL_OR_ANY_HOST.test(h) ? 'localhost' : h.includes(':') && !h.startsWith('[') ? `[${h}]` : h;
  try {
    return new URL(`http://${name}:${port}`).origin;
  } catch {
    return undefined;
  }
}

/** True for a HOST only this machine can reach (so a derived PUBLIC_URL is right for everyone). */
export function isLoopbackHost(host: string): boolean {
  return /^(?:localhost|127(?:\.\d{1,3}){3}|::1|\[::1\])$/i.test(host.trim());
}

/** Names and ranges proxy-addr (behind Fastify's trustProxy) understands besides plain addresses. */
const PROXY_KEYWORDS = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(entry: string): boolean {
  if (PROXY_KEYWORDS.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: off by default; a hop count or a list of proxy addresses. `true` is refused: it
 * would believe the left-most X-Forwarded-For entry, which the client writes.
 */
function parseTrustProxy(raw: string | undefined, problems: string[]): Config['trustProxy'] {
  const value = raw?.trim().toLowerCase() ?? '';
  if (value === '' || ['false', 'off', 'no', '0'].includes(value)) return false;
  if (['true', 'on', 'yes'].includes(value)) {
    problems.push(
      `TRUST_PROXY: "${raw}" would trust any X-Forwarded-For the client writes; set the number of ` +
        'proxies in front of the app (e.g. 1) or their addresses (e.g. 127.0.0.1 or 10.0.0.0/8)',
    );
    return false;
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 10) problems.push(`TRUST_PROXY: ${hops} proxies is more than 10; count the proxies again`);
    return hops;
  }
  const entries = value.split(',').map((e) => e.trim());
  const bad = entries.filter((e) => !isAddressOrRange(e));
  if (bad.length > 0) {
    problems.push(
      `TRUST_PROXY: "${bad.join('", "')}" is not a proxy count, an IP address, a CIDR range or ` +
        'loopback/linklocal/uniquelocal',
    );
    return false;
  }
  return entries;
}

/** spamd://host:port with the port spelled out (783, spamd's own, when none is given). */
function normaliseSpamdUrl(raw: string): string {
  const url = new URL(raw.replace(/^tcp:/, 'spamd:'));
  return `spamd://${url.hostname}:${url.port || '783'}`;
}

/**
 * EGRESS_ALLOW_LOOPBACK=1 lets the egress guard contact loopback servers, which tests need and
 * production must never do: it is refused (a configuration error) unless NODE_ENV=test.
 */
function parseEgressAllowLoopback(
  raw: string | undefined,
  nodeEnv: string | undefined,
  problems: string[],
): boolean {
  const value = raw?.trim().toLowerCase() ?? '';
  if (value === '' || value === '0' || value === 'false') return false;
  if (value !== '1' && value !== 'true') {
    problems.push(`EGRESS_ALLOW_LOOPBACK: "${raw}" must be 1 or 0`);
    return false;
  }
  if (nodeEnv !== 'test') {
    problems.push('EGRESS_ALLOW_LOOPBACK: only for tests; it is honoured only with NODE_ENV=test');
    return false;
  }
  return true;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const parsed = envSchema.safeParse(env);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = issue.path.join('.');
      const raw = env[name];
      problems.push(`${name}: ${issue.message}${raw === undefined ? '' : ` (got "${raw}")`}`);
    }
    throw new ConfigError(problems);
  }
  const e = parsed.data;

  const pair = (idName: string, id: string | undefined, secretName: string, secret: string | undefined) => {
    if (Boolean(id) !== Boolean(secret)) problems.push(`${idName} and ${secretName} must be set together`);
    return id && secret ? { clientId: id, clientSecret: secret } : undefined;
  };
  const google = pair('GOOGLE_CLIENT_ID', e.GOOGLE_CLIENT_ID, 'GOOGLE_CLIENT_SECRET', e.GOOGLE_CLIENT_SECRET);
  const github = pair('GITHUB_CLIENT_ID', e.GITHUB_CLIENT_ID, 'GITHUB_CLIENT_SECRET', e.GITHUB_CLIENT_SECRET);
  const corsOrigins = (e.CORS_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
    .map((o) => originOf(o, 'CORS_ORIGINS', problems))
    .filter((o): o is string => o !== undefined);
  const trustProxy = parseTrustProxy(e.TRUST_PROXY, problems);
  const egressAllowLoopback = parseEgressAllowLoopback(e.EGRESS_ALLOW_LOOPBACK, e.NODE_ENV, problems);
  const publicUrl = e.PUBLIC_URL ?? defaultPublicUrl(e.HOST, e.PORT);
  if (publicUrl === undefined) {
    problems.push(`HOST: "${e.HOST}" cannot form a URL; set PUBLIC_URL to the address browsers use`);
  }
  if (problems.length > 0 || publicUrl === undefined) throw new ConfigError(problems);

  const domain = mailDomain(e.MAIL_FROM);
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl: publicUrl.replace(/\/+$/, ''),
    publicUrlDerived: e.PUBLIC_URL === undefined,
    dataDir: path.resolve(cwd, e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM.trim(),
    mailDomain: domain,
    mailWorkers: e.MAIL_WORKERS,
    mailLeaseSeconds: e.MAIL_LEASE_SECONDS,
    smtpTimeoutScale: e.SMTP_TIMEOUT_SCALE,
    freeMonthlyLimit: e.FREE_MONTHLY_LIMIT,
    proMonthlyLimit: e.PRO_MONTHLY_LIMIT,
    freeSendsPerMinute: e.FREE_SENDS_PER_MINUTE,
    proSendsPerMinute: e.PRO_SENDS_PER_MINUTE,
    previewsPerMinute: e.PREVIEWS_PER_MINUTE,
    prepareProcesses: e.PREPARE_PROCESSES,
    prepareBudgetMs: e.PREPARE_BUDGET_MS,
    searchBudgetMs: e.SEARCH_BUDGET_MS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    stripe: e.STRIPE_SECRET_KEY
      ? {
          secretKey: e.STRIPE_SECRET_KEY,
          webhookSecret: e.STRIPE_WEBHOOK_SECRET,
          priceProMonthly: e.STRIPE_PRICE_PRO_MONTHLY,
          apiUrl: e.STRIPE_API_URL,
        }
      : undefined,
    google: google && {
      ...google,
      authorizationUrl: e.GOOGLE_AUTHORIZATION_URL,
      tokenUrl: e.GOOGLE_TOKEN_URL,
      jwksUrl: e.GOOGLE_JWKS_URL,
      issuer: e.GOOGLE_ISSUER,
    },
    github: github && {
      ...github,
      authorizationUrl: e.GITHUB_AUTHORIZATION_URL,
      tokenUrl: e.GITHUB_TOKEN_URL,
      apiUrl: e.GITHUB_API_URL.replace(/\/+$/, ''),
    },
    captcha: { provider: e.CAPTCHA_PROVIDER, maxNumber: e.CAPTCHA_MAX_NUMBER },
    abuseEmail: e.ABUSE_EMAIL ?? `abuse@${domain}`,
    supportEmail: e.SUPPORT_EMAIL ?? `support@${domain}`,
    corsOrigins,
    trustProxy,
    devMailbox:
      e.DEV_MAILBOX === 'on' || (e.DEV_MAILBOX === 'auto' && isLoopbackHostname(new URL(publicUrl).hostname)),
    spamdUrl: e.SPAMD_URL ? normaliseSpamdUrl(e.SPAMD_URL) : null,
    chromiumPath: e.CHROMIUM_PATH?.trim() || null,
    searchPath: e.PATH ?? '',
    renderPages: e.RENDER_PAGES,
    renderBudgetMs: e.RENDER_BUDGET_MS,
    egressAllowLoopback,
    logLevel: e.LOG_LEVEL,
  };
}

/**
 * Reads the `.env` file of the working directory (or the file ENV_FILE names; ENV_FILE= reads
 * none) into process.env before loadConfig, for `npm start`, `npm run worker` and `npm run admin`.
 * A variable already in the environment wins over the file, even when set to an empty value
 * (process.loadEnvFile never overrides). Returns the file read, if any.
 */
export function loadEnvFile(cwd = process.cwd()): string | undefined {
  const chosen = process.env.ENV_FILE;
  if (chosen !== undefined && chosen.trim() === '') return undefined;
  const file = path.resolve(cwd, chosen ?? '.env');
  if (!fs.existsSync(file)) {
    if (chosen !== undefined) throw new ConfigError([`ENV_FILE: ${file} does not exist`]);
    return undefined;
  }
  try {
    process.loadEnvFile(file);
  } catch (err) {
    throw new ConfigError([`${file}: cannot be read (${(err as Error).message})`]);
  }
  return file;
}

/**
 * The configuration of a command started from the shell: the `.env` file, then the environment.
 * An invalid one prints every problem and exits with status 1.
 */
export function configOrExit(): Config {
  try {
    loadEnvFile();
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}
