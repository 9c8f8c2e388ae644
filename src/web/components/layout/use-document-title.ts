import { useEffect } from 'react';

const SUFFIX = 'Proofmail';

/** Sets the tab title as "Page · Proofmail" (or the brand alone) while the page is shown. */
export function useDocumentTitle(title: string | null): void {
  useEffect(() => {
    document.title = title ? `${title} · ${SUFFIX}` : `${SUFFIX} — send and share test HTML emails`;
  }, [title]);
}
