import { expect } from 'vitest';
import type { TestServer } from './e2e-server.ts';
import type { TestUser } from './users.ts';

/** Sends an email through the API as `u` (to client@example.com, "Spring sale" unless `body` says), expecting it taken; answers its id. */
export async function sendEmail(
  server: TestServer,
  u: TestUser,
  body: Record<string, unknown>,
): Promise<string> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/email/send',
    headers: u.headers,
    payload: { to: 'client@example.com', subject: 'Spring sale', ...body },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id as string;
}

/** `GET /api/email/{id}` as `u`, its JSON. */
export async function getEmail(server: TestServer, u: TestUser, id: string) {
  const res = await server.app.inject({ method: 'GET', url: `/api/email/${id}`, headers: u.headers });
  return res.json();
}
