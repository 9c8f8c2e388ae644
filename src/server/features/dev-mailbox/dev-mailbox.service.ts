import type { Db } from '../../db/database.ts';
import { isUuid } from '../../db/uuid.ts';
import { asciiAddress } from '../../../shared/recipients.ts';
import {
  deleteAllCaughtMail,
  findCaughtMail,
  listCaughtMail,
  type CaughtMailListRow,
  type CaughtMailRow,
} from '../../mail/caught-mail.repo.ts';

/** Reads of the local mail catcher's store. */

/** `to` as written or in the ASCII form the catcher stores (`ann@bücher.example` → `ann@xn--bcher-kva.example`). */
export function listMailbox(
  db: Db,
  args: { limit: number; to?: string; bodies: boolean },
): Promise<CaughtMailListRow[]> {
  const to = args.to?.trim();
  return listCaughtMail(db, {
    limit: args.limit,
    to: to ? asciiAddress(to) : undefined,
    bodies: args.bodies,
  });
}

export async function getMailboxMessage(db: Db, id: string): Promise<CaughtMailRow | undefined> {
  if (!isUuid(id)) return undefined;
  return findCaughtMail(db, id);
}

export function clearMailbox(db: Db): Promise<number> {
  return deleteAllCaughtMail(db);
}
