import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuth2Server } from 'oauth2-mock-server';

/**
 * Local social sign-in providers for tests (API and browser): nothing leaves the machine.
 *
 * - Google: oauth2-mock-server, a real OIDC authorization server (authorization code + PKCE,
 *   id tokens signed with an RS256 key published at /jwks). The id token's claims come from
 *   `setIdentity`.
 * - GitHub: a small fake of the three endpoints we use: the token exchange (which checks the
 *   client credentials, redirect URI and PKCE verifier, and reports a bad code GitHub-style as
 *   200 `{ error }`), GET /user and GET /user/emails.
 *
 * Each exposes `env`, the configuration variables that point the app at it.
 */

export const FAKE_GOOGLE_CLIENT = { id: 'google-test-client', secret: 'google-test-secret' };
export const FAKE_GITHUB_CLIENT = { id: 'github-test-client', secret: 'github-test-secret' };

export interface GoogleIdentity {
  sub: string;
  email?: string;
  email_verified?: boolean;
}

export interface FakeGoogle {
  issuer: string;
  env: Record<string, string>;
  setIdentity: (identity: GoogleIdentity) => void;
  /** The next token request fails with `{ error }` (HTTP 400). */
  failNextTokenRequest: (error?: string) => void;
  /** The next id token is signed for another audience. */
  wrongAudienceOnce: () => void;
  stop: () => Promise<void>;
}

export async function startFakeGoogle(): Promise<FakeGoogle> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  const issuer = server.issuer.url!;
  let identity: GoogleIdentity = { sub: 'google-1', email: 'person@example.com', email_verified: true };
  let wrongAudience = false;
  server.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
    Object.assign(token.payload, identity);
    if (!identity.email) delete token.payload.email;
    if (identity.email_verified === undefined) delete token.payload.email_verified;
    if (wrongAudience && token.payload.aud === FAKE_GOOGLE_CLIENT.id) {
      token.payload.aud = 'someone-else';
      wrongAudience = false;
    }
  });
  return {
    issuer,
    env: {
      GOOGLE_CLIENT_ID: FAKE_GOOGLE_CLIENT.id,
      GOOGLE_CLIENT_SECRET: FAKE_GOOGLE_CLIENT.secret,
      GOOGLE_AUTHORIZATION_URL: `${issuer}/authorize`,
      GOOGLE_TOKEN_URL: `${issuer}/token`,
      GOOGLE_JWKS_URL: `${issuer}/jwks`,
      GOOGLE_ISSUER: issuer,
    },
    setIdentity: (next) => {
      identity = next;
    },
    failNextTokenRequest: (error = 'invalid_grant') => {
      server.service.once('beforeResponse', (response: { body: unknown; statusCode: number }) => {
        response.body = { error };
        response.statusCode = 400;
      });
    },
    wrongAudienceOnce: () => {
      wrongAudience = true;
    },
    stop: () => server.stop(),
  };
}

export interface GitHubIdentity {
  id: number;
  login: string;
  emails: { email: string; primary: boolean; verified: boolean }[];
}

export interface FakeGitHub {
  url: string;
  env: Record<string, string>;
  setIdentity: (identity: GitHubIdentity) => void;
  /** How many token exchanges succeeded (to show a flow really reached the provider). */
  tokenExchanges: () => number;
  stop: () => Promise<void>;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.on('data', (chunk: Buffer) => (data += chunk.toString()));
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startFakeGitHub(): Promise<FakeGitHub> {
  let identity: GitHubIdentity = {
    id: 1001,
    login: 'octo',
    emails: [{ email: 'octo@example.com', primary: true, verified: true }],
  };
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const accessTokens = new Set<string>();
  let exchanges = 0;

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
        const redirectUri = url.searchParams.get('redirect_uri');
        const challenge = url.searchParams.get('code_challenge');
        if (
          url.searchParams.get('client_id') !== FAKE_GITHUB_CLIENT.id ||
          !redirectUri ||
          !challenge ||
          url.searchParams.get('code_challenge_method') !== 'S256'
        ) {
          return json(res, 400, { error: 'invalid_request' });
        }
        const code = randomBytes(10).toString('hex');
        codes.set(code, { challenge, redirectUri });
        const back = new URL(redirectUri);
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { Location: back.toString() });
        return res.end();
      }
      if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
        const form = new URLSearchParams(await readBody(req));
        const basic = Buffer.from(
          (req.headers.authorization ?? '').replace(/^Basic /, ''),
          'base64',
        ).toString();
        if (basic !== `${FAKE_GITHUB_CLIENT.id}:${FAKE_GITHUB_CLIENT.secret}`) {
          return json(res, 401, { error: 'invalid_client' });
        }
        const saved = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const expected = createHash('sha256').update(verifier).digest('base64url');
        if (!saved || saved.challenge !== expected || saved.redirectUri !== form.get('redirect_uri')) {
          return json(res, 200, { error: 'bad_verification_code' }); // GitHub answers 200 here
        }
        const token = `gho_${randomBytes(16).toString('hex')}`;
        accessTokens.add(token);
        exchanges++;
        return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
      }
      const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (req.method === 'GET' && (url.pathname === '/api/user' || url.pathname === '/api/user/emails')) {
        if (!accessTokens.has(bearer)) return json(res, 401, { message: 'Bad credentials' });
        if (url.pathname === '/api/user') return json(res, 200, { id: identity.id, login: identity.login });
        return json(
          res,
          200,
          identity.emails.map((e) => ({ ...e, visibility: 'private' })),
        );
      }
      json(res, 404, { message: 'Not Found' });
    })().catch(() => json(res, 500, { message: 'fake github failed' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    env: {
      GITHUB_CLIENT_ID: FAKE_GITHUB_CLIENT.id,
      GITHUB_CLIENT_SECRET: FAKE_GITHUB_CLIENT.secret,
      GITHUB_AUTHORIZATION_URL: `${base}/login/oauth/authorize`,
      GITHUB_TOKEN_URL: `${base}/login/oauth/access_token`,
      GITHUB_API_URL: `${base}/api`,
    },
    setIdentity: (next) => {
      identity = next;
    },
    tokenExchanges: () => exchanges,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
