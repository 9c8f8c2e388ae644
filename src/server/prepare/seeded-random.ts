import { createHash } from 'node:crypto';

/**
 * A generator of numbers in [0, 1) drawn from the SHA-256 of `seed`: the same seed, the same
 * numbers. sfc32 (Chris Doty-Humphrey's small fast counting generator). MJML's ids
 * (src/server/prepare/mjml.ts) and Liquid's `sample` (src/server/prepare/merge-tags/fill-liquid.ts)
 * draw from it, so a preview is the bytes the send delivers.
 */
export function seededRandom(seed: string): () => number {
  const digest = createHash('sha256').update(seed).digest();
  let [a, b, c, d] = [0, 4, 8, 12].map((i) => digest.readUInt32LE(i)) as [number, number, number, number];
  return () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}
