import type { Db } from '../../src/server/db/database.ts';
import { RENDER_RATE_RULE } from '../../src/server/features/email/export.routes.ts';

/** How many renders every user together has been charged in the renderer's rate-limit window. */
export async function rendersCharged(db: Db): Promise<number> {
  const row = await db
    .selectFrom('rate_limits')
    .select((eb) => eb.fn.sum<string>('count').as('n'))
    .where('key', 'like', `${RENDER_RATE_RULE.name}:%`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
