import { hash, verify, type Algorithm, type Options } from '@node-rs/argon2';
import { createHash, hash as digest, randomBytes } from 'node:crypto';

/**
 * Secrets of the accounts domain: password hashing (argon2id, OWASP's m=19 MiB, t=2, p=1) and
 * the random tokens we hand out (sessions, links, tickets), which are stored only as SHA-256.
 */

// `Algorithm` is an ambient const enum, which isolatedModules cannot read: 2 is Argon2id.
const ARGON2ID = 2 as Algorithm;
const ARGON2_OPTIONS: Options = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

let dummyHash: Promise<string> | undefined;

/**
 * Checks a password against a stored hash. Without a hash (unknown account, social-only account)
 * it still verifies against a dummy hash, so the answer takes the same time either way.
 */
export async function verifyPassword(storedHash: string | null, password: string): Promise<boolean> {
  if (!storedHash) {
    dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}

/** 256 random bits, URL-safe: 43 characters of base64url. */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Cheap pre-check so malformed tokens never reach the database. */
export function isWellFormedToken(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}

/**
 * What we store and look up instead of the token. The one-shot crypto.hash: a fifth of what a
 * createHash object costs, on the path of every authenticated request.
 */
export function hashSecret(token: string): Buffer {
  return digest('sha256', token, 'buffer');
}

/** hashSecret in base64, computed directly (a key for the session cache). */
export function hashSecretBase64(token: string): string {
  return digest('sha256', token, 'base64');
}

/**
 * Stands for the password an account has at a moment, so a later check can tell whether it
 * changed since, without keeping the hash itself anywhere else. Empty for no password.
 */
export function passwordFingerprint(passwordHash: string | null): string {
  return passwordHash ? createHash('sha256').update(passwordHash).digest('base64url') : '';
}

/**
 * What a one-time token's payload keeps of a browser key (a cookie value): its SHA-256, so the
 * table alone cannot be replayed from a browser.
 */
export function browserBinding(browserKey: string): string {
  return hashSecret(browserKey).toString('base64url');
}
