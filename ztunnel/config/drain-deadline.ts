/**
 * How long ztunnel drains after SIGTERM before force-closing what is left, as upstream computes it
 * (istio/ztunnel src/config.rs, `self_termination_deadline`):
 * - CONNECTION_TERMINATION_DEADLINE (a duration such as `25s`) when set;
 * - else from TERMINATION_GRACE_PERIOD_SECONDS: above 10 s, 5 s less; otherwise 1 s less; never
 *   under 1 s, so the last seconds before Kubernetes' SIGKILL are used to close things cleanly;
 * - else 5 s (DEFAULT_DRAIN_DURATION).
 * The Helm chart sets TERMINATION_GRACE_PERIOD_SECONDS from terminationGracePeriodSeconds (30 -> 25 s).
 */
export const DEFAULT_DRAIN_MS = 5000;

export function computeDrainDeadlineMs(env: Readonly<Record<string, string | undefined>>): number {
  const explicit = env['CONNECTION_TERMINATION_DEADLINE'];
  if (explicit !== undefined && explicit !== '')
    return parseDurationMs('CONNECTION_TERMINATION_DEADLINE', explicit);
  const grace = env['TERMINATION_GRACE_PERIOD_SECONDS'];
  if (grace !== undefined && grace !== '') {
    const secs = Number(grace);
    if (!Number.isInteger(secs) || secs < 0) {
      throw new Error(
        `Expected TERMINATION_GRACE_PERIOD_SECONDS to be a non-negative integer, got ${JSON.stringify(grace)}`,
      );
    }
    return drainDeadlineForGraceMs(secs);
  }
  return DEFAULT_DRAIN_MS;
}

/** The deadline from a pod's grace period alone (seconds): above 10 s, 5 s less; else 1 s less; at least 1 s. */
export function drainDeadlineForGraceMs(graceS: number): number {
  return Math.max(graceS > 10 ? graceS - 5 : graceS - 1, 1) * 1000;
}

/** Durations as ztunnel's env parser takes them (humantime): `500ms`, `25s`, `2m`, `1h`; a bare number is seconds. */
export function parseDurationMs(name: string, text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m?.[1])
    throw new Error(`Expected ${name} to be a duration like 25s or 500ms, got ${JSON.stringify(text)}`);
  const unitMs = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 's'] ?? 1000;
  return Number(m[1]) * unitMs;
}
