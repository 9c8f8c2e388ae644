import { z } from 'zod';
import { serviceCheckedString, UTF16_UNITS } from './common.ts';

/**
 * Personal API keys (docs/decisions/0073-personal-api-keys.md): `POST /api/keys` answers the key
 * once; `GET /api/keys` lists names and display prefixes, never a key. A key is sent as
 * `Authorization: Bearer pm_…` and can do what its owner can, except change the account.
 */

/** Every key starts with this, so a bearer token is told apart from a session token by its shape. */
export const API_KEY_PREFIX = 'pm_';
/** How many keys one account may hold at once. */
export const MAX_API_KEYS = 20;
export const MAX_KEY_NAME_LENGTH = 64;

export const API_KEY_MESSAGES = {
  nameRequired: 'Enter a name for the key',
  nameTooLong: `Name must be at most ${MAX_KEY_NAME_LENGTH} characters`,
  nameCharacters: 'Name must not contain line breaks, control characters or text-direction marks',
  tooMany: `You already have ${MAX_API_KEYS} API keys, the most an account can hold. Revoke one to create another.`,
  notFound: 'API key not found',
  verifyFirst: 'Verify your email address before creating API keys.',
  invalidKey: 'The API key is not valid: it may have been revoked. Create a new key in Account → API Keys.',
  // Said on reads too (GET /api/user/settings, /api/billing/subscription): it must fit both.
  accountOnly:
    'API keys cannot read or change the account settings (email, password, API keys, billing, sessions, preferences). Sign in to the web app to do this.',
} as const;

/** The name's limits are the service's (`validateKeyName`), with its message past the parser's bound too. */
export const createApiKeyRequest = z.strictObject({
  name: serviceCheckedString(
    MAX_KEY_NAME_LENGTH * 4,
    { message: API_KEY_MESSAGES.nameTooLong, code: 'invalid_name' },
    { message: API_KEY_MESSAGES.nameRequired, code: 'invalid_name' },
  ).meta({
    minLength: 1,
    maxLength: MAX_KEY_NAME_LENGTH,
    description: `Trimmed; it must not be blank. The length is ${UTF16_UNITS}.`,
  }),
});
export type CreateApiKeyRequest = z.input<typeof createApiKeyRequest>;

export const apiKey = z.object({
  id: z.string(),
  name: z.string(),
  /** The first characters of the key (`pm_AbCd…`), to tell keys apart; not enough to use one. */
  prefix: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type ApiKey = z.infer<typeof apiKey>;

export const createApiKeyResponse = z.object({
  id: z.string(),
  name: z.string(),
  /** The key itself: shown this once, never again. */
  key: z.string(),
  prefix: z.string(),
  createdAt: z.string(),
});
export type CreateApiKeyResponse = z.infer<typeof createApiKeyResponse>;

export const apiKeyListResponse = z.object({ items: z.array(apiKey) });
export type ApiKeyListResponse = z.infer<typeof apiKeyListResponse>;

export const apiKeyIdParams = z.strictObject({ id: z.string().max(100) });
export const revokeApiKeyResponse = z.object({ ok: z.literal(true) });
