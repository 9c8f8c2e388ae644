import { X } from 'lucide-react';
import { useEffect, useId, useLayoutEffect, useRef, type ReactNode } from 'react';
import { Button } from './button.tsx';
import { cx } from './cx.ts';
import { Toaster } from './toast.tsx';

export interface DialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  description?: ReactNode;
  children?: ReactNode;
  /** Actions row at the bottom (right-aligned, stacks on phones). */
  footer?: ReactNode;
  size?: 'sm' | 'md' | 'lg';
  /** Hide the corner close button (Escape and the backdrop still close). */
  hideClose?: boolean;
  className?: string;
}

const widths = { sm: 'max-w-sm', md: 'max-w-lg', lg: 'max-w-2xl' } as const;

/**
 * A modal dialog on the native <dialog> element: showModal() makes the rest of the page inert
 * (a real focus trap), Escape closes it, and focus returns to whatever opened it.
 */
export function Dialog(props: DialogProps) {
  if (!props.open) return null;
  return <OpenDialog {...props} />;
}

function OpenDialog({
  onOpenChange,
  title,
  description,
  children,
  footer,
  size = 'md',
  hideClose,
  className,
}: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  const pressStartedOnBackdrop = useRef(false);
  const onOpenChangeRef = useRef(onOpenChange);
  useEffect(() => {
    onOpenChangeRef.current = onOpenChange;
  });

  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const html = document.documentElement;
    html.classList.add('overflow-hidden');
    if (!dialog.open) dialog.showModal();
    return () => {
      html.classList.remove('overflow-hidden');
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      className={cx(
        'm-auto w-[calc(100%-2rem)] overflow-visible bg-transparent p-0 text-slate-900 backdrop:bg-slate-950/50 backdrop:backdrop-blur-[2px] dark:text-slate-100',
        widths[size],
      )}
      onCancel={(e) => {
        // React passes a nested dialog's cancel and close up through the component tree (a
        // confirmation inside this dialog, as in share-settings.tsx): only our own Escape is ours.
        if (e.target !== e.currentTarget) return;
        // Escape: the parent owns `open`, so ask it to close instead of closing ourselves.
        e.preventDefault();
        onOpenChangeRef.current(false);
      }}
      onClose={(e) => {
        if (e.target !== e.currentTarget) return;
        // Closed by the browser (e.g. a second Escape); a stale event after a reopen is ignored.
        if (!e.currentTarget.open) onOpenChangeRef.current(false);
      }}
      onMouseDown={(e) => {
        pressStartedOnBackdrop.current = e.target === e.currentTarget;
      }}
      onClick={(e) => {
        // A click on the dialog element itself (not its panel) is a click on the backdrop.
        if (e.target === e.currentTarget && pressStartedOnBackdrop.current) onOpenChangeRef.current(false);
      }}
    >
      <div
        className={cx(
          'relative max-h-[calc(100dvh-2rem)] overflow-y-auto rounded-xl border border-slate-200 bg-white p-6 shadow-xl transition duration-150 starting:scale-95 starting:opacity-0 dark:border-slate-800 dark:bg-slate-900',
          className,
        )}
      >
        <div className={cx('space-y-1.5', !hideClose && 'pr-8')}>
          <h2 id={titleId} className="text-lg leading-7 font-semibold tracking-tight">
            {title}
          </h2>
          {description ? (
            <p id={descriptionId} className="text-sm text-slate-600 dark:text-slate-400">
              {description}
            </p>
          ) : null}
        </div>
        {children ? <div className="mt-4">{children}</div> : null}
        {footer ? (
          <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">{footer}</div>
        ) : null}
        {hideClose ? null : (
          <Button
            variant="ghost"
            size="icon-sm"
            className="absolute top-4 right-4"
            aria-label="Close"
            onClick={() => onOpenChangeRef.current(false)}
          >
            <X aria-hidden="true" />
          </Button>
        )}
      </div>
      {/* Toasts raised while the dialog is open must sit above it, not under the inert page. */}
      <Toaster />
    </dialog>
  );
}

export interface ConfirmDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  description?: ReactNode;
  confirmLabel: ReactNode;
  cancelLabel?: ReactNode;
  onConfirm: () => void;
  busy?: boolean;
  destructive?: boolean;
}

/** "Are you sure?" in one line: Cancel gets focus first, so Enter never confirms by accident. */
export function ConfirmDialog({
  open,
  onOpenChange,
  title,
  description,
  confirmLabel,
  cancelLabel = 'Cancel',
  onConfirm,
  busy,
  destructive,
}: ConfirmDialogProps) {
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (!busy) onOpenChange(next);
      }}
      title={title}
      description={description}
      size="sm"
      hideClose
      footer={
        <>
          <Button variant="outline" autoFocus disabled={busy} onClick={() => onOpenChange(false)}>
            {cancelLabel}
          </Button>
          <Button variant={destructive ? 'destructive' : 'primary'} busy={busy} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </>
      }
    />
  );
}
