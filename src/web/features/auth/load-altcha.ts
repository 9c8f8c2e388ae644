/**
 * Loads the ALTCHA widget on demand (only the sign-up page needs it, so the landing page stays
 * light). The "external" build is the CSP-friendly one: its stylesheet is a file (style-src 'self')
 * and its proof-of-work workers are our own same-origin scripts (worker-src 'self'), not blobs.
 */
let loading: Promise<void> | null = null;

export function loadAltcha(): Promise<void> {
  loading ??= (async () => {
    const [, , { default: ShaWorker }, { default: Pbkdf2Worker }] = await Promise.all([
      import('altcha/external'),
      import('altcha/altcha.css'),
      import('altcha/workers/sha?worker'),
      import('altcha/workers/pbkdf2?worker'),
    ]);
    for (const name of ['SHA-256', 'SHA-384', 'SHA-512'])
      globalThis.$altcha.algorithms.set(name, () => new ShaWorker());
    for (const name of ['PBKDF2/SHA-256', 'PBKDF2/SHA-384', 'PBKDF2/SHA-512']) {
      globalThis.$altcha.algorithms.set(name, () => new Pbkdf2Worker());
    }
  })().catch((err: unknown) => {
    loading = null; // let a retry load it again
    throw err;
  });
  return loading;
}
