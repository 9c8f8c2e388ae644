/**
 * Changes to an account that another feature acts on, told in this process after they commit:
 * billing keeps the Stripe customer's email the account's (Stripe mails receipts and failed
 * payments there). A listener's failure is its own: it is logged, and never fails the change.
 */
export interface AccountEvents {
  onEmailChanged(listener: (change: { userId: string; email: string }) => Promise<void>): void;
  /** Tells every listener; resolves when they have all finished, each caught. */
  emailChanged(change: { userId: string; email: string }): Promise<void>;
}

export function createAccountEvents(log: (err: unknown, what: string) => void): AccountEvents {
  const listeners: ((change: { userId: string; email: string }) => Promise<void>)[] = [];
  return {
    onEmailChanged: (listener) => void listeners.push(listener),
    async emailChanged(change) {
      await Promise.all(
        listeners.map((listener) =>
          listener(change).catch((err: unknown) => log(err, 'an email-change listener failed')),
        ),
      );
    },
  };
}
