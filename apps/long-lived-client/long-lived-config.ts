import type { ConnectionLife, LongLivedTarget } from './long-lived-connections.ts';

/** What the pod's client is told (its LONG_LIVED environment variable, JSON). */
export interface LongLivedConfig {
  targets: LongLivedTarget[];
  count: number;
  intervalMs: number;
}

/** The prefix of the one line holding every connection's life (Unix-millisecond times). */
export const LONG_LIVED_RESULT = 'long-lived-result';

const isTarget = (t: unknown): t is LongLivedTarget => {
  const o = t as Partial<LongLivedTarget> | null;
  return (
    typeof o?.host === 'string' &&
    Number.isInteger(o.port) &&
    typeof o.pod === 'string' &&
    typeof o.node === 'string'
  );
};

/** The config, or what is wrong with it. */
export function parseLongLivedConfig(json: string | undefined): LongLivedConfig | string {
  let value: Partial<LongLivedConfig>;
  try {
    value = JSON.parse(json ?? '') as Partial<LongLivedConfig>;
  } catch {
    return `Expected LONG_LIVED to be JSON {"targets":[...],"count":N,"intervalMs":N}, got ${JSON.stringify(json)}`;
  }
  const { targets, count, intervalMs } = value;
  if (!Array.isArray(targets) || targets.length === 0 || !targets.every(isTarget))
    return `Expected LONG_LIVED.targets to be a non-empty list of {host,port,pod,node}, got ${JSON.stringify(targets)}`;
  if (!Number.isInteger(count) || (count ?? 0) < 1 || (count ?? 0) > 1000)
    return `Expected LONG_LIVED.count to be an integer in [1, 1000], got ${JSON.stringify(count)}`;
  if (typeof intervalMs !== 'number' || !(intervalMs >= 10))
    return `Expected LONG_LIVED.intervalMs to be a number of at least 10, got ${JSON.stringify(intervalMs)}`;
  return { targets, count: count ?? 1, intervalMs };
}

/** The lives from the client's output (its result line), or undefined when it wrote none. */
export function lifeLinesOf(lines: readonly string[]): ConnectionLife[] | undefined {
  const line = lines.find((l) => l.startsWith(`${LONG_LIVED_RESULT} `));
  return line ? (JSON.parse(line.slice(LONG_LIVED_RESULT.length + 1)) as ConnectionLife[]) : undefined;
}
