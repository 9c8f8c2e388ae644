/**
 * caniemail keys each client's results by version: app versions ("16.80", "6.1.31.2"), years
 * ("2019"), or test dates ("2024-05"). Compared as text, "9" comes after "16" and "6.1" after
 * "2024-01"; compared part by part as numbers, the latest test wins. A test date compares above an
 * app version (2024 > 16), which is right for the clients whose rows mix the two: the dated rows
 * are the recent retests.
 */
function parts(version: string): number[] {
  return (version.match(/\d+/g) ?? []).map(Number);
}

/** Negative when `a` is older than `b`, positive when newer, 0 when the same. */
export function compareVersions(a: string, b: string): number {
  const pa = parts(a);
  const pb = parts(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? -1) - (pb[i] ?? -1);
    if (d !== 0) return d;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The latest version among the keys of a client's results, or undefined when there is none. */
export function latestVersion(versions: Iterable<string>): string | undefined {
  let latest: string | undefined;
  for (const v of versions) if (latest === undefined || compareVersions(v, latest) > 0) latest = v;
  return latest;
}
