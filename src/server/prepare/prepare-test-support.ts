import { expect } from 'vitest';
import { PrepareError } from './prepare.ts';

/** What `prepare`'s tests measure a message for: fixed, so results are comparable. */
export const testEnvelope = {
  from: 'Proofmail <no-reply@proofmail.test>',
  to: 'client@example.com',
  replyTo: null,
  messageIdDomain: 'proofmail.test',
  date: new Date('2026-03-15T12:00:00Z'),
};

/** The PrepareError a promise rejects with, or a failure when it resolves. */
export async function refusal(promise: Promise<unknown>): Promise<PrepareError> {
  const err = await promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PrepareError);
  return err as PrepareError;
}
