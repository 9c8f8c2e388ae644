/** Joins class names, skipping falsy ones (a tiny stand-in for clsx). */
export function cx(...parts: Array<string | false | null | undefined>): string {
  return parts.filter(Boolean).join(' ');
}

/** The one focus ring every interactive primitive uses, so keyboard focus looks the same everywhere. */
export const focusRing =
  'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:focus-visible:outline-brand-400';
