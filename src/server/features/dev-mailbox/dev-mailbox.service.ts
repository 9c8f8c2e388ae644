import type { Db } from '../../db/database.ts';
import { isUuid } from '../../db/uuid.ts';
import {
  deleteAllCaughtMail,
  findCaughtMail,
  listCaughtMail,
  type CaughtMailRow,
} from '../../mail/caught-mail.repo.ts';

/** Reads of the local mail catcher's store. */

export function listMailbox(db: Db, args: { limit: number; to?: string }): Promise<CaughtMailRow[]> {
  return listCaughtMail(db, { limit: args.limit, to: args.to?.trim() || undefined });
}

export async function getMailboxMessage(db: Db, id: string): Promise<CaughtMailRow | undefined> {
  if (!isUuid(id)) return undefined;
  return findCaughtMail(db, id);
}

export function clearMailbox(db: Db): Promise<number> {
  return deleteAllCaughtMail(db);
}
