import type {} from 'altcha/types/react';
import { RotateCw, ShieldAlert } from 'lucide-react';
import { useEffect, useImperativeHandle, useRef, useState, type Ref } from 'react';
import { API_BASE } from '../../lib/api.ts';
import { Button } from '../../components/ui/button.tsx';
import { cx } from '../../components/ui/cx.ts';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { loadAltcha } from './load-altcha.ts';
import { waitFor } from './wait-for.ts';

/** What the form can do with the challenge: start it, or replace a spent solution (single-use). */
export interface AltchaChallengeHandle {
  /** Starts solving unless it is solving or solved already. */
  start: () => void;
  /** Drops the solution and starts solving a fresh challenge. */
  reset: () => void;
}

interface WidgetElement extends HTMLElement {
  /** Present once the widget script has upgraded the element. */
  configure?: (config: Record<string, unknown>) => Promise<void>;
  getState?: () => string;
  reset?: () => void;
  verify?: () => Promise<unknown>;
}

interface StateChangeDetail {
  state: string;
  payload?: string | null;
}

export interface AltchaChallengeProps {
  /** Where the widget fetches a challenge (from /api/config). */
  challengeUrl: string;
  /** The solved payload (sent as captchaToken), or null while unsolved, expired or failed. */
  onChange: (payload: string | null) => void;
  ref?: Ref<AltchaChallengeHandle>;
}

/** How many times a failed verification is tried again by itself, and the wait before the first. */
const AUTO_RETRIES = 2;
const RETRY_DELAY_MS = 1000;

/**
 * Widgets asked to start whose state has not said "verifying" yet: the widget's verify() changes
 * its state only after an await, so a second call in the same moment would see it still unverified
 * and start over, dropping the first solution (and its proof-of-work workers mid-load).
 */
const starting = new WeakSet<WidgetElement>();

/**
 * Starts solving unless the widget is solving or solved already (or was just asked to). The
 * widget's own verify() always starts over, so nothing calls it but this.
 */
function startSolving(widget: WidgetElement | null): void {
  if (!widget || starting.has(widget)) return;
  const state = widget.getState?.();
  if (state === 'unverified' || state === 'expired' || state === 'error') {
    starting.add(widget);
    widget.verify?.().catch(() => undefined); // a failure shows in the widget itself
  }
}

/** A relative challenge URL is resolved against the API origin (VITE_API_URL) or this page. */
function absoluteUrl(url: string): string {
  return new URL(url, API_BASE ? `${API_BASE}/` : window.location.origin).toString();
}

/**
 * The ALTCHA proof-of-work challenge. It starts solving as soon as the user focuses the form (or
 * ticks the box) and reports the payload when solved. The widget script loads lazily; readiness is
 * polled every 100 ms for up to 30 s (docs/spec.md §9), after which a retry is offered.
 */
export function AltchaChallenge({ challengeUrl, onChange, ref }: AltchaChallengeProps) {
  const widgetRef = useRef<WidgetElement>(null);
  const [phase, setPhase] = useState<'loading' | 'ready' | 'failed'>('loading');
  const [attempt, setAttempt] = useState(0);
  const onChangeRef = useRef(onChange);
  // Read by the focus listener: the element works as soon as its script runs, but solving fails
  // until loadAltcha has registered the proof-of-work workers.
  const phaseRef = useRef(phase);
  useEffect(() => {
    onChangeRef.current = onChange;
    phaseRef.current = phase;
  });

  useImperativeHandle(ref, () => {
    const start = () => startSolving(widgetRef.current);
    return {
      start,
      reset: () => {
        widgetRef.current?.reset?.();
        onChangeRef.current(null);
        start(); // the form is filled in: solve the fresh challenge straight away
      },
    };
  });

  useEffect(() => {
    const controller = new AbortController();
    (async () => {
      try {
        await loadAltcha();
      } catch {
        if (!controller.signal.aborted) setPhase('failed');
        return;
      }
      const ready = await waitFor(() => typeof widgetRef.current?.configure === 'function', {
        signal: controller.signal,
      });
      if (controller.signal.aborted) return;
      phaseRef.current = ready ? 'ready' : 'failed'; // at once: a focus may come before the render
      setPhase(phaseRef.current);
      // Solving starts on the form's first focus (below); someone who got there before the widget
      // loaded (autofocus, a quick typist) would otherwise wait for nothing.
      const widget = widgetRef.current;
      if (ready && widget?.closest('form')?.contains(document.activeElement)) startSolving(widget);
    })();
    return () => controller.abort();
  }, [attempt]);

  useEffect(() => {
    const el = widgetRef.current;
    if (!el) return;
    // A failed verification (the challenge download dropped, a worker that did not start on a busy
    // machine) is tried again by itself, twice, a moment later; after that the widget's own error
    // and its checkbox remain for the user.
    let retries = 0;
    let timer: number | undefined;
    const onState = (e: Event) => {
      starting.delete(el);
      const detail = (e as CustomEvent<StateChangeDetail>).detail;
      onChangeRef.current(detail.state === 'verified' && detail.payload ? detail.payload : null);
      if (detail.state === 'error' && retries < AUTO_RETRIES) {
        retries++;
        window.clearTimeout(timer);
        timer = window.setTimeout(() => {
          // A focus in the meantime has started it again already: starting over would drop that run.
          if (starting.has(el) || el.getState?.() !== 'error') return;
          el.reset?.();
          startSolving(el);
        }, retries * RETRY_DELAY_MS);
      }
    };
    // The one place that starts on focus (the widget's own `auto="onfocus"` would be a second
    // starter racing this one); only once the proof-of-work workers are registered.
    const form = el.closest('form');
    const onFocusIn = () => {
      if (phaseRef.current === 'ready') startSolving(el);
    };
    el.addEventListener('statechange', onState);
    form?.addEventListener('focusin', onFocusIn);
    return () => {
      window.clearTimeout(timer);
      el.removeEventListener('statechange', onState);
      form?.removeEventListener('focusin', onFocusIn);
    };
  }, [attempt]);

  return (
    <div className="space-y-2" data-captcha-phase={phase}>
      {phase === 'loading' ? <Skeleton className="block h-[58px] w-full rounded-lg" /> : null}
      {phase === 'failed' ? (
        <div
          role="alert"
          className="flex items-center gap-3 rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-800 dark:border-red-900/60 dark:bg-red-950/40 dark:text-red-300"
        >
          <ShieldAlert aria-hidden="true" className="size-5 shrink-0" />
          <span className="flex-1">The security check could not load.</span>
          <Button
            size="sm"
            variant="outline"
            onClick={() => {
              setPhase('loading');
              setAttempt((n) => n + 1);
            }}
          >
            <RotateCw aria-hidden="true" />
            Try Again
          </Button>
        </div>
      ) : null}
      {/* Keyed wrapper: "Try Again" mounts a fresh widget. Its variables theme the widget like our inputs. */}
      <div
        key={attempt}
        className={cx(
          phase === 'ready' ? 'block' : 'hidden',
          '[--altcha-border-radius:0.5rem] [--altcha-color-base:transparent] [--altcha-max-width:100%]',
          '[--altcha-border-color:var(--color-slate-300)] [--altcha-color-primary:var(--color-brand-600)]',
          'dark:[--altcha-border-color:var(--color-slate-700)] dark:[--altcha-color-primary:var(--color-brand-400)]',
        )}
      >
        <altcha-widget ref={widgetRef} challenge={absoluteUrl(challengeUrl)} name="captchaToken" />
      </div>
    </div>
  );
}
