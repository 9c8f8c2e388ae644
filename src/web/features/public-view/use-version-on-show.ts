import { useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router';
import type { PublicEmail } from '../../../shared/contract/email.ts';
import { publicEmailKey } from './api.ts';

/**
 * The email on show stays on show (docs/decisions/0124-review-answer-tells-the-reviewer.md). On
 * the link's own address (the latest version, no `?v=`), a refetch that brings a newer version (the
 * window came back into focus, a review was sent) does not swap it in under a reader who may be
 * judging it: the page keeps the version it showed, under that version's address (`?v=N`, in place
 * of this history entry), where the newer-version notice says a newer one exists and links to it.
 *
 * What a visit shows first is taken from a fetch made during the visit, or from a cache still
 * fresh: coming back to the latest after a while shows what the server says is the latest now.
 */
export function useVersionOnShow(
  slug: string,
  version: number | undefined,
  token: string | null,
  query: UseQueryResult<PublicEmail>,
): PublicEmail | undefined {
  const queryClient = useQueryClient();
  const [, setParams] = useSearchParams();
  const visit = useRef<{ version: number | undefined; since: number; shown: PublicEmail | null }>({
    version,
    since: Date.now(),
    shown: null,
  });
  if (visit.current.version !== version) visit.current = { version, since: Date.now(), shown: null };
  const fetched = query.data;
  const shown = visit.current.shown;
  const held =
    version === undefined && fetched && shown && fetched.version > shown.version
      ? { ...shown, versions: fetched.versions, reviews: fetched.reviews }
      : null;
  if (!held && fetched && (query.dataUpdatedAt >= visit.current.since || !query.isStale))
    visit.current.shown = fetched;

  const heldRef = useRef(held);
  heldRef.current = held;
  const heldVersion = held?.version;
  useEffect(() => {
    const keep = heldRef.current;
    if (heldVersion === undefined || !keep) return;
    queryClient.setQueryData([...publicEmailKey(slug), heldVersion, token], keep);
    setParams(
      (prev) => {
        const out = new URLSearchParams(prev);
        out.set('v', String(heldVersion));
        return out;
      },
      { replace: true, preventScrollReset: true },
    );
  }, [heldVersion, queryClient, setParams, slug, token]);

  return held ?? fetched;
}
