import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

const TEMPLATE_DB = 'proofmail_template';

/**
 * A fresh, migrated database cloned from the run's template (or, with `empty`, one without any
 * migration, for tests of a migration's data path); dropped by the returned function.
 */
export async function createTestDatabase(
  options: { empty?: boolean } = {},
): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = inject('pgAdminUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}${options.empty ? '' : ` template ${TEMPLATE_DB}`}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}
