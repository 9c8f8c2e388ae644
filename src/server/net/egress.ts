// PLACEHOLDER — not merged yet. The egress guard is built on another branch (w2-egress); this file
// only lets src/server/checks/live.ts compile until the lead merges that branch, which replaces it.
export interface Egress {
  readonly notMergedYet: true;
}
