import { apiBlob } from '../../lib/api.ts';

/**
 * History thumbnails (GET /api/email/{id}/thumbnail.png), fetched at most two at a time so a long
 * page never floods the server's render pool (docs/decisions/0090-stored-thumbnails.md), and kept
 * for the rest of the visit: an email as sent never changes, so neither does its thumbnail. They
 * are data: URLs, which the app's img-src allows (src/server/http/security-headers.ts); blob: is
 * not allowed there, since the preview frames inherit that policy. A failed fetch is not kept; the
 * next mount of its row asks again.
 */
const AT_ONCE = 2;
const KEPT = 200;

const kept = new Map<string, Promise<string>>();
const waiting: (() => void)[] = [];
let running = 0;

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running >= AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function forgetOldest(): void {
  while (kept.size > KEPT) {
    const id = kept.keys().next().value!;
    kept.delete(id);
  }
}

function dataUrl(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(reader.error ?? new Error('unreadable thumbnail'));
    reader.readAsDataURL(blob);
  });
}

/** The thumbnail as a data: URL; rejects when it could not be had (renderer busy or off, a 404). */
export function loadThumbnail(emailId: string): Promise<string> {
  const known = kept.get(emailId);
  if (known) return known;
  const url = inTurn(() => apiBlob(`/api/email/${emailId}/thumbnail.png`)).then(dataUrl);
  kept.set(emailId, url);
  url.catch(() => kept.delete(emailId));
  forgetOldest();
  return url;
}
