import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { notFound } from '../../http/errors.ts';
import { buildMessage } from '../../mail/message.ts';
import { textFromHtml } from '../../mail/text-part.ts';
import { findDelivery } from './email.repo.ts';

/**
 * The exact MIME bytes one recipient received (docs/architecture.md §9): rebuilt by the builder the
 * transport sends with, from the same stored values (the outbox row's Message-ID, recipients,
 * subject, parts and queue time, and MAIL_FROM as it was at sending).
 */
export async function deliveredMessage(
  deps: { db: Db; config: Config },
  userId: string,
  emailId: string,
  deliveryId: string | undefined,
): Promise<{ message: Buffer; messageId: string }> {
  const row = await findDelivery(deps.db, userId, emailId, deliveryId);
  if (!row) throw notFound(deliveryId === undefined ? 'Email not found' : 'Delivery not found');
  const message = await buildMessage({
    from: row.mail_from ?? deps.config.mailFrom,
    to: row.to_addresses,
    replyTo: row.reply_to,
    subject: row.subject,
    html: row.html,
    // Rows queued before the text part was stored got it generated at delivery, the same way.
    text: row.text ?? textFromHtml(row.html),
    messageId: row.message_id,
    date: row.created_at,
  });
  return { message, messageId: row.message_id };
}
