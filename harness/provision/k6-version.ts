/**
 * Which k6 fits: 1.x or 2.x (the scripts are type-checked against @types/k6 2.2 and use nothing newer
 * than k6 v1.0's API: constant-vus, constant-arrival-rate, --console-output, --summary-export). k6 is
 * never built or downloaded by this project (its module is under the AGPL): a user's own k6, from PATH
 * or K6_BINARY, is used when it fits.
 */
export const K6_MIN_VERSION = '1.0.0';
export const K6_BELOW_VERSION = '3.0.0';

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
}

export function parseSemVer(text: string): SemVer | undefined {
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(text);
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) };
}

/** `k6 v2.2.0 (go1.26.8, linux/amd64)` -> `2.2.0`. */
export function parseK6VersionOutput(output: string): string | undefined {
  const m = /\bk6 v(\d+\.\d+\.\d+)/.exec(output);
  return m?.[1];
}

function compare(a: SemVer, b: SemVer): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/** At least K6_MIN_VERSION and below K6_BELOW_VERSION. */
export function isK6VersionFit(version: string): boolean {
  const have = parseSemVer(version);
  const min = parseSemVer(K6_MIN_VERSION);
  const below = parseSemVer(K6_BELOW_VERSION);
  if (!have || !min || !below) return false;
  return compare(have, min) >= 0 && compare(have, below) < 0;
}
