/**
 * Whether a transform job needs code that a transform process does not load at start: the MJML
 * compiler, loaded with the first MJML job (mjml.ts). Only such a job says `loaded` before it runs.
 * Its time budget starts then, and until then it has LOAD_ALLOWANCE_MS (transform-pool.ts). Every
 * other job's budget starts when it is sent. Its own module, because the pool (in the server's
 * process) and the transform process both read it, and the pool must not load the transforms.
 */
export function needsLoading(input: { format?: 'html' | 'mjml' }): boolean {
  return input.format === 'mjml';
}
