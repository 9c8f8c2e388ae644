import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  changeEmailRequest,
  changePasswordRequest,
  meResponse,
  okResponse,
  settingsResponse,
  updateSettingsRequest,
  updateSettingsResponse,
} from '../../../shared/contract/auth.ts';
import { targetClientsRequest, targetClientsResponse } from '../../../shared/contract/checks.ts';
import { toUserResponse } from '../../accounts/user-view.ts';
import { loadTargetClients, saveTargetClients, validateTargetClients } from '../../checks/target-clients.ts';
import type { FeatureDeps } from '../../app-deps.ts';
import { requireSession, requireUser, API_KEY_ROUTE } from '../../http/auth.ts';
import { enforceRateLimits, refundRateLimits } from '../../http/rate-limit.ts';
import { USER_RATE_RULES } from './rate-rules.ts';
import {
  changePassword,
  requestEmailChange,
  updateLoginAlerts,
  validateEmailChange,
  validatePasswordChange,
} from './user.service.ts';

/** The signed-in user's own account: /api/user/me, settings, change email, change password. */
export function registerUserRoutes(app: FastifyInstance, deps: FeatureDeps): void {
  void app.register(async (api) => {
    const r = api.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/api/user/me',
      { config: API_KEY_ROUTE, schema: { response: { 200: meResponse } } },
      async (request) => {
        return { user: toUserResponse(requireUser(request)) };
      },
    );

    r.get('/api/user/settings', { schema: { response: { 200: settingsResponse } } }, async (request) => {
      const user = requireUser(request);
      return { ok: true as const, user: toUserResponse(user), prefs: { loginAlerts: user.loginAlerts } };
    });

    r.patch(
      '/api/user/settings',
      { schema: { body: updateSettingsRequest, response: { 200: updateSettingsResponse } } },
      async (request) => {
        const user = requireUser(request);
        const loginAlerts = await updateLoginAlerts(deps, user, request.body.loginAlerts);
        return { ok: true as const, prefs: { loginAlerts } };
      },
    );

    // The clients the pre-send checklist's compatibility check scores (src/server/checks/).
    r.get(
      '/api/user/target-clients',
      { schema: { response: { 200: targetClientsResponse } } },
      async (request) => ({ targetClients: await loadTargetClients(deps.db, requireUser(request).id) }),
    );

    r.put(
      '/api/user/target-clients',
      { schema: { body: targetClientsRequest, response: { 200: targetClientsResponse } } },
      async (request) => {
        const user = requireUser(request);
        const ids = validateTargetClients(request.body.targetClients);
        return { targetClients: await saveTargetClients(deps.db, user.id, ids, deps.clock.now()) };
      },
    );

    r.post(
      '/api/user/change-email',
      { schema: { body: changeEmailRequest, response: { 200: okResponse } } },
      async (request, reply) => {
        const auth = requireSession(request);
        const newEmail = validateEmailChange(auth.user, request.body);
        await enforceRateLimits(
          deps.db,
          reply,
          [{ rule: USER_RATE_RULES.changeEmailPerAccount, subject: auth.user.id }],
          deps.clock.now(),
        );
        await requestEmailChange(deps, auth, { newEmail, currentPassword: request.body.currentPassword });
        return { ok: true as const };
      },
    );

    r.post(
      '/api/user/change-password',
      { schema: { body: changePasswordRequest, response: { 200: okResponse } } },
      async (request, reply) => {
        const auth = requireSession(request);
        validatePasswordChange(request.body);
        const at = deps.clock.now();
        const checks = [{ rule: USER_RATE_RULES.changePasswordPerAccount, subject: auth.user.id }];
        await enforceRateLimits(deps.db, reply, checks, at);
        await changePassword(deps, auth, request.body);
        await refundRateLimits(deps.db, checks, at); // only wrong current passwords count
        return { ok: true as const };
      },
    );
  });
}
