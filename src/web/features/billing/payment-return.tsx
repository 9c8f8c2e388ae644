import { useQueryClient } from '@tanstack/react-query';
import { CircleCheck, Clock, Info } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { BILLING_MESSAGES } from '../../../shared/contract/billing.ts';
import { PAYMENT_SYNC_ATTEMPTS } from '../../../shared/plans.ts';
import { Button, buttonClasses } from '../../components/ui/button.tsx';
import { cx } from '../../components/ui/cx.ts';
import { Spinner } from '../../components/ui/spinner.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { isUserData, ME_KEY } from '../../lib/query-keys.ts';
import { usePublicConfig } from '../../lib/public-config.ts';
import { meQuery } from '../../lib/session.ts';
import { syncBilling } from './api.ts';
import { confirmUpgrade } from './payment-return-flow.ts';

type ReturnState = 'checking' | 'success' | 'processing' | 'billing-off';

/**
 * The return from Stripe Checkout on /app/account?payment=success (docs/spec.md §4). Runs the sync loop;
 * Pro → "Upgrade Successful!" and every cached view reloads (settings first); otherwise
 * "Processing Payment" and a refresh later runs the loop again. On a server without billing no
 * payment can have happened: it says so and makes no call (docs/decisions/0057-billing-off-says-so.md).
 * Renders nothing on other visits.
 */
export function PaymentReturn() {
  const [params, setParams] = useSearchParams();
  const returning = params.get('payment') === 'success';
  const queryClient = useQueryClient();
  const config = usePublicConfig();
  // Unknown until /api/config answers; if it cannot, try the flow as if billing were on.
  const billingEnabled = config.isError ? true : config.data?.billingEnabled;
  const [loopState, setState] = useState<ReturnState | null>(returning ? 'checking' : null);
  const state: ReturnState | null = !returning
    ? loopState
    : billingEnabled === undefined
      ? null
      : billingEnabled
        ? loopState
        : 'billing-off';
  const [attempt, setAttempt] = useState(0);
  // setParams changes identity with the URL; the running flow must not restart because of it.
  const setParamsRef = useRef(setParams);
  useEffect(() => {
    setParamsRef.current = setParams;
  });

  useEffect(() => {
    if (!returning || billingEnabled !== true) return;
    const controller = new AbortController();
    setState('checking');
    confirmUpgrade(
      {
        sync: (signal) => syncBilling(signal),
        refreshUser: () => queryClient.invalidateQueries({ queryKey: ME_KEY }),
        fetchMe: () => queryClient.fetchQuery({ ...meQuery(), staleTime: 0 }),
      },
      { signal: controller.signal, onAttempt: setAttempt },
    ).then(
      (result) => {
        if (result === 'pro') {
          setState('success');
          toast.success('Upgrade Successful!', 'Welcome to Pro.');
          // Reload settings and every other view of the account (usage limits, history access).
          void queryClient.invalidateQueries({ predicate: isUserData });
          // Done: a reload should not run the flow again.
          setParamsRef.current(
            (p) => {
              p.delete('payment');
              return p;
            },
            { replace: true },
          );
        } else {
          setState('processing');
        }
      },
      () => undefined, // aborted: the page was left
    );
    return () => controller.abort();
  }, [returning, billingEnabled, queryClient]);

  if (state === null) return null;
  const tone = {
    checking:
      'border-brand-200 bg-brand-50 text-brand-950 dark:border-brand-900/60 dark:bg-brand-950/40 dark:text-brand-100',
    success:
      'border-green-300 bg-green-50 text-green-950 dark:border-green-500/40 dark:bg-green-950/40 dark:text-green-100',
    processing:
      'border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-500/40 dark:bg-amber-950/40 dark:text-amber-100',
    'billing-off':
      'border-slate-200 bg-slate-50 text-slate-800 dark:border-slate-800 dark:bg-slate-900 dark:text-slate-200',
  }[state];

  return (
    <div
      role="status"
      aria-live="polite"
      data-testid="payment-return"
      data-state={state}
      className={cx(
        'flex flex-col gap-3 rounded-xl border p-4 text-sm sm:flex-row sm:items-center sm:justify-between',
        tone,
      )}
    >
      <div className="flex gap-3">
        {state === 'checking' ? (
          <Spinner className="mt-0.5 size-5" label={null} />
        ) : state === 'success' ? (
          <CircleCheck
            aria-hidden="true"
            className="mt-0.5 size-5 shrink-0 text-green-600 dark:text-green-400"
          />
        ) : state === 'billing-off' ? (
          <Info aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-slate-500 dark:text-slate-400" />
        ) : (
          <Clock aria-hidden="true" className="mt-0.5 size-5 shrink-0" />
        )}
        <div>
          {state === 'checking' ? (
            <>
              <p className="font-semibold">Confirming your payment…</p>
              <p>
                Waiting for Stripe to confirm your subscription
                {attempt > 1 ? ` (check ${attempt} of ${PAYMENT_SYNC_ATTEMPTS})` : ''}. This usually takes a
                few seconds.
              </p>
            </>
          ) : state === 'billing-off' ? (
            <>
              <p className="font-semibold">{BILLING_MESSAGES.disabled}</p>
              <p>No payment was taken, and your plan has not changed.</p>
            </>
          ) : state === 'success' ? (
            <>
              <p className="font-semibold">Upgrade Successful!</p>
              <p>
                You are on the Pro plan: unlimited sends, your email history and public share links are
                unlocked.
              </p>
            </>
          ) : (
            <>
              <p className="font-semibold">Processing Payment</p>
              <p>
                Your payment is still being processed. Please refresh this page in a few minutes; your plan
                changes to Pro as soon as the payment is confirmed.
              </p>
            </>
          )}
        </div>
      </div>
      {state === 'success' ? (
        <Link
          to="/app/history"
          className={buttonClasses({
            size: 'sm',
            variant: 'outline',
            className: 'self-start sm:self-center',
          })}
        >
          Open Your History
        </Link>
      ) : state === 'processing' ? (
        <Button
          size="sm"
          variant="outline"
          className="self-start sm:self-center"
          onClick={() => window.location.reload()}
        >
          Refresh
        </Button>
      ) : null}
    </div>
  );
}
