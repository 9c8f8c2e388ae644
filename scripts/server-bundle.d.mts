export declare const TRANSFORM_ENTRIES: string[];
export declare function bundleServer(
  root: string,
  entries: string[],
  outdir: string,
  write?: boolean,
): { path: string; contents: Uint8Array }[];
