/**
 * The pinned k6. Why v2.2.0: it is the newest v2 release whose module source the Go module proxy
 * serves to our machines (v2.3.0's zip answers 403 there, so `go install` could not build it);
 * @types/k6 2.2.1 describes the same API, and our scripts are type-checked against it. A k6 already
 * on PATH is used when it is at least the pin and of the same major version: the scripts use nothing
 * newer than the pin, and a new major may break them.
 */
export const K6_VERSION = '2.2.0';
export const K6_MODULE = 'go.k6.io/k6/v2';
/** k6 v2.2.0's go.mod says `go 1.25.0`. */
export const K6_MIN_GO = '1.25';

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

/** Same major as the pin, and not older than it. */
export function isK6VersionFit(version: string, pinned = K6_VERSION): boolean {
  const have = parseSemVer(version);
  const want = parseSemVer(pinned);
  if (!have || !want || have.major !== want.major) return false;
  return have.minor > want.minor || (have.minor === want.minor && have.patch >= want.patch);
}

/** `go version go1.26.8 linux/amd64` -> true when at least `min` (major.minor). */
export function isGoVersionFit(output: string, min = K6_MIN_GO): boolean {
  const m = /go(\d+)\.(\d+)/.exec(output.replace(/^go version /, ''));
  const [wantMajor = 0, wantMinor = 0] = min.split('.').map(Number);
  if (!m) return false;
  const major = Number(m[1]);
  const minor = Number(m[2]);
  return major > wantMajor || (major === wantMajor && minor >= wantMinor);
}
