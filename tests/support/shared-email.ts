import { expect } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import type { TestServer } from './e2e-server.ts';
import type { TestUser } from './users.ts';

/** An email of the owner's, stored as sent and shared: its id and its public link's slug. */
export async function insertSharedEmail(
  server: TestServer,
  owner: TestUser,
  email: { subject: string; html: string },
): Promise<{ id: string; slug: string }> {
  const { id } = await insertEmail(server.db, {
    userId: owner.user.id,
    to: 'client@example.com',
    subject: email.subject,
    html: email.html,
    inlineCss: false,
    createdAt: new Date(),
  });
  const res = await fetch(`${server.baseUrl}/api/email/${id}/share`, {
    method: 'POST',
    headers: owner.headers,
  });
  expect(res.status).toBe(200);
  return { id, slug: ((await res.json()) as { email: { publicSlug: string } }).email.publicSlug };
}
