import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  cancelEmailChangeRequest,
  cancelEmailChangeResponse,
  captchaChallengeResponse,
  exchangeRequest,
  meResponse,
  okResponse,
  requestPasswordResetRequest,
  resetPasswordRequest,
  sessionResponse,
  signInRequest,
  signUpRequest,
  verifyEmailRequest,
  verifyEmailResponse,
  AUTH_MESSAGES,
  type CaptchaChallenge,
} from '../../../shared/contract/auth.ts';
import { isPlainAddress } from '../../../shared/recipients.ts';
import { normaliseEmail, validateNewPassword } from '../../accounts/account-rules.ts';
import type { ClientInfo } from '../../accounts/sessions.ts';
import { toUserResponse } from '../../accounts/user-view.ts';
import type { AccountUser } from '../../accounts/users.repo.ts';
import type { FeatureDeps } from '../../app-deps.ts';
import { requireSession, requireUser, API_KEY_ROUTE, PUBLIC_ROUTE } from '../../http/auth.ts';
import { readCookie, serializeCookie } from '../../http/cookies.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { enforceRateLimits } from '../../http/rate-limit.ts';
import {
  cancelEmailChange,
  exchangeTicket,
  resendVerification,
  resetPassword,
  sendPasswordReset,
  signIn,
  signOut,
  signUp,
  validateSignIn,
  validateSignUp,
  verifyEmail,
} from './auth.service.ts';
import { createCaptchaChallenge } from './captcha.service.ts';
import { registerOAuthRoutes, TICKET_COOKIE, ticketCookie } from './oauth.routes.ts';
import { RATE_RULES } from './rate-rules.ts';

/**
 * The known-device mark (docs/decisions/0034-sign-in-slowdown-and-known-devices.md): set at each
 * successful password sign-in, sent back only to the sign-in route.
 */
const DEVICE_COOKIE = 'pm_device';
const DEVICE_COOKIE_MAX_AGE_S = 365 * 24 * 3600;

function deviceCookie(deps: FeatureDeps, value: string): string {
  return serializeCookie(DEVICE_COOKIE, value, {
    path: '/api/auth/signin',
    maxAge: DEVICE_COOKIE_MAX_AGE_S,
    secure: deps.config.publicUrl.startsWith('https:'),
  });
}

export function clientOf(request: FastifyRequest): ClientInfo {
  // request.ip honours X-Forwarded-For only when TRUST_PROXY is set (Fastify's trustProxy).
  return { ip: request.ip, userAgent: request.headers['user-agent'] ?? null };
}

function session(result: { user: AccountUser; token: string }) {
  return { user: toUserResponse(result.user), token: result.token };
}

export function registerAuthRoutes(app: FastifyInstance, deps: FeatureDeps): void {
  // Work that runs after the answer has gone out (password reset mail); awaited on shutdown.
  const pending = new Set<Promise<void>>();
  const afterResponse = new WeakMap<FastifyRequest, () => Promise<void>>();
  const runLater = (request: FastifyRequest, task: () => Promise<void>) => afterResponse.set(request, task);

  app.addHook('onClose', async () => {
    await Promise.allSettled([...pending]);
  });

  void app.register(async (api) => {
    api.addHook('onResponse', (request, _reply, done) => {
      done(); // a callback hook: most answers have no task, and need no promise
      const task = afterResponse.get(request);
      if (!task) return;
      afterResponse.delete(request);
      const running: Promise<void> = task()
        .catch((err: unknown) => request.log.error({ err }, 'background account task failed'))
        .finally(() => pending.delete(running));
      pending.add(running);
    });

    const r = api.withTypeProvider<ZodTypeProvider>();
    const now = () => deps.clock.now();

    r.post(
      '/api/auth/signup',
      { config: PUBLIC_ROUTE, schema: { body: signUpRequest, response: { 200: sessionResponse } } },
      async (request, reply) => {
        const input = validateSignUp(request.body);
        await enforceRateLimits(
          deps.db,
          reply,
          [{ rule: RATE_RULES.signUpPerIp, subject: request.ip }],
          now(),
        );
        const result = await signUp(
          deps,
          { ...input, captchaToken: request.body.captchaToken },
          clientOf(request),
        );
        return session(result);
      },
    );

    r.post(
      '/api/auth/signin',
      { config: PUBLIC_ROUTE, schema: { body: signInRequest, response: { 200: sessionResponse } } },
      async (request, reply) => {
        const input = validateSignIn(request.body);
        // Limits and the known-device mark: src/server/features/auth/sign-in-throttle.ts.
        const result = await signIn(deps, input, clientOf(request), readCookie(request, DEVICE_COOKIE));
        void reply.header('Set-Cookie', deviceCookie(deps, result.deviceKey));
        return session(result);
      },
    );

    r.post('/api/auth/signout', { schema: { response: { 200: okResponse } } }, async (request) => {
      await signOut(deps, requireSession(request));
      return { ok: true as const };
    });

    r.get(
      '/api/auth/me',
      { config: API_KEY_ROUTE, schema: { response: { 200: meResponse } } },
      async (request) => {
        return { user: toUserResponse(requireUser(request)) };
      },
    );

    r.post(
      '/api/auth/resend-verification',
      { schema: { response: { 200: okResponse } } },
      async (request, reply) => {
        const user = requireUser(request);
        await enforceRateLimits(
          deps.db,
          reply,
          [
            { rule: RATE_RULES.resendPerIp, subject: request.ip },
            { rule: RATE_RULES.resendPerAccount, subject: user.id },
          ],
          now(),
        );
        await resendVerification(deps, user);
        return { ok: true as const };
      },
    );

    r.post(
      '/api/auth/verify-email',
      { config: PUBLIC_ROUTE, schema: { body: verifyEmailRequest, response: { 200: verifyEmailResponse } } },
      async (request) => {
        const { emailChanged } = await verifyEmail(deps, request.body.token.trim());
        return { ok: true as const, emailChanged };
      },
    );

    r.post(
      '/api/auth/cancel-email-change',
      {
        config: PUBLIC_ROUTE,
        schema: { body: cancelEmailChangeRequest, response: { 200: cancelEmailChangeResponse } },
      },
      async (request, reply) => {
        await enforceRateLimits(
          deps.db,
          reply,
          [{ rule: RATE_RULES.cancelEmailChangePerIp, subject: request.ip }],
          now(),
        );
        const result = await cancelEmailChange(deps, request.body.token.trim());
        return { ok: true as const, ...result };
      },
    );

    r.post(
      '/api/auth/request-password-reset',
      { config: PUBLIC_ROUTE, schema: { body: requestPasswordResetRequest, response: { 200: okResponse } } },
      async (request, reply) => {
        const email = normaliseEmail(request.body.email);
        if (!email) throw badRequest(AUTH_MESSAGES.missingEmail, 'missing_fields');
        // The shape of an address says nothing about whether an account has it.
        if (!isPlainAddress(email)) throw badRequest(AUTH_MESSAGES.invalidEmail, 'invalid_email');
        await enforceRateLimits(
          deps.db,
          reply,
          [
            { rule: RATE_RULES.resetRequestPerIp, subject: request.ip },
            { rule: RATE_RULES.resetRequestPerAccount, subject: email.toLowerCase() },
          ],
          now(),
        );
        // Same answer, status and timing for every address: the lookup and the mail happen after
        // the response is sent (docs/decisions/0016-existing-email-at-signup.md).
        runLater(request, () => sendPasswordReset(deps, email));
        return { ok: true as const };
      },
    );

    r.post(
      '/api/auth/reset-password',
      { config: PUBLIC_ROUTE, schema: { body: resetPasswordRequest, response: { 200: okResponse } } },
      async (request, reply) => {
        const token = request.body.token.trim();
        if (!token) throw badRequest(AUTH_MESSAGES.expiredResetLink, 'invalid_token');
        validateNewPassword(request.body.newPassword);
        await enforceRateLimits(
          deps.db,
          reply,
          [{ rule: RATE_RULES.resetPerIp, subject: request.ip }],
          now(),
        );
        await resetPassword(deps, token, request.body.newPassword);
        return { ok: true as const };
      },
    );

    r.post(
      '/api/auth/exchange',
      { config: PUBLIC_ROUTE, schema: { body: exchangeRequest, response: { 200: sessionResponse } } },
      async (request, reply) => {
        // The binding cookie is good for this one exchange, whatever its outcome.
        void reply.header('Set-Cookie', ticketCookie(deps, '', 0));
        const browserKey = readCookie(request, TICKET_COOKIE);
        return session(await exchangeTicket(deps, request.body.ticket.trim(), browserKey, clientOf(request)));
      },
    );

    r.get(
      '/api/auth/captcha/challenge',
      {
        config: {
          ...PUBLIC_ROUTE,
          summary: 'A proof-of-work challenge (ALTCHA) to solve before sign-up',
          errorAnswers: {
            404:
              'The captcha is off (`CAPTCHA_PROVIDER=none`): sign-up needs no challenge. `GET /api/config` ' +
              'says so beforehand (`captcha.provider` is "none", `challengeUrl` null).',
          },
        },
        schema: { response: { 200: captchaChallengeResponse } },
      },
      async () => {
        // The sign-up page asks only when GET /api/config names a challenge URL (src/web/features/auth/signup-page.tsx).
        if (deps.config.captcha.provider !== 'altcha')
          throw notFound(AUTH_MESSAGES.captchaOff, 'captcha_off');
        const challenge = await createCaptchaChallenge(deps);
        return {
          parameters: { ...challenge.parameters } as CaptchaChallenge['parameters'],
          signature: challenge.signature ?? '',
        };
      },
    );

    registerOAuthRoutes(api, deps);
  });
}
