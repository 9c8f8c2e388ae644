/**
 * Thumbnails kept in memory, newest last (a Map keeps insertion order): at most `maxEntries` and
 * `maxBytes`, the least recently used dropped first. An email's HTML as sent never changes (a new
 * version is a new email), so its id and the mode are the whole key; ownership is checked before
 * the cache is read.
 */
export function createThumbnailCache(maxEntries = 500, maxBytes = 32 * 1024 * 1024) {
  const entries = new Map<string, Buffer>();
  let bytes = 0;
  return {
    get(key: string): Buffer | undefined {
      const hit = entries.get(key);
      if (hit) {
        entries.delete(key);
        entries.set(key, hit);
      }
      return hit;
    },
    set(key: string, value: Buffer): void {
      const old = entries.get(key);
      if (old) {
        bytes -= old.length;
        entries.delete(key);
      }
      entries.set(key, value);
      bytes += value.length;
      for (const [k, v] of entries) {
        if (entries.size <= maxEntries && bytes <= maxBytes) break;
        entries.delete(k);
        bytes -= v.length;
      }
    },
  };
}
