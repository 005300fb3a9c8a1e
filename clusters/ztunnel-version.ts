// Which istio/ztunnel a run ran, as the binary says it (`ztunnel version`, upstream's
// src/version.rs BuildInfo: `version.BuildInfo{Version:"1.30.3", GitRevision:"a45c…", …}`), never a
// folder's name: the row's ztunnel_version column, what compare keys releases apart by.
import { execFileSync } from 'node:child_process';

/** The BuildInfo line's Version field, or undefined when the text is not one. */
export function parseZtunnelVersion(text: string): string | undefined {
  return /\bVersion:"([^"]+)"/.exec(text)?.[1];
}

const known = new Map<string, string>();

/**
 * `<binary> version`'s Version (cached per path: a run's rows ask once): '' for no binary (our
 * ztunnel), `unknown` when the binary does not answer with a BuildInfo within 5 s.
 */
export function ztunnelVersionOf(binary: string): string {
  if (!binary) return '';
  let version = known.get(binary);
  if (version === undefined) {
    try {
      const out = execFileSync(binary, ['version'], { timeout: 5000, encoding: 'utf8', stdio: 'pipe' });
      version = parseZtunnelVersion(out) ?? 'unknown';
    } catch {
      version = 'unknown';
    }
    known.set(binary, version);
  }
  return version;
}
