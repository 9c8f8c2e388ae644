import { Mail } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { cx } from '../../components/ui/cx.ts';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { loadThumbnail } from './thumbnail-loader.ts';

type State = { status: 'waiting' } | { status: 'shown'; url: string } | { status: 'failed' };

/**
 * The top of the email as sent, rendered by the server (light mode, 600 px wide at half scale), or
 * nothing when the renderer is off. It is asked for only when its row comes near the screen.
 */
export function Thumbnail({ emailId, className }: { emailId: string; className?: string }) {
  const box = useRef<HTMLSpanElement>(null);
  const [state, setState] = useState<State>({ status: 'waiting' });

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    let live = true;
    const show = () =>
      loadThumbnail(emailId).then(
        (url) => live && setState({ status: 'shown', url }),
        () => live && setState({ status: 'failed' }),
      );
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        observer.disconnect();
        void show();
      },
      { rootMargin: '200px 0px' },
    );
    observer.observe(element);
    return () => {
      live = false;
      observer.disconnect();
    };
  }, [emailId]);

  return (
    <span
      ref={box}
      data-testid="thumbnail"
      data-state={state.status}
      className={cx(
        'relative block shrink-0 overflow-hidden rounded-md border border-slate-200 bg-white dark:border-slate-700',
        className,
      )}
    >
      {state.status === 'shown' ? (
        <img src={state.url} alt="" className="h-full w-full object-cover object-top" draggable={false} />
      ) : state.status === 'failed' ? (
        <span className="flex h-full w-full items-center justify-center bg-slate-50 dark:bg-slate-800">
          <Mail aria-hidden="true" className="size-4 text-slate-400" />
        </span>
      ) : (
        <Skeleton className="h-full w-full rounded-none" />
      )}
    </span>
  );
}
