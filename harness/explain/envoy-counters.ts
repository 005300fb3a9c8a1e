import type { Scrape } from '../observe/metrics-scraper.ts';

/**
 * Envoy's own count of what went wrong on the gateway's upstreams over the run: the change of a few
 * cluster counters between the first and the last scrape of its :15090/stats/prometheus
 * (metrics-scraper.ts), per cluster, summed over gateway pods. Counter meanings:
 * envoyproxy/envoy docs/root/configuration/upstream/cluster_manager/cluster_stats.rst.
 */
export const SERVICE_COUNTERS = [
  'upstream_cx_total',
  'upstream_cx_destroy_remote',
  'upstream_cx_destroy_remote_with_active_rq',
  'upstream_rq_retry',
  'upstream_rq_retry_success',
  'upstream_cx_connect_fail',
  'upstream_rq_pending_failure_eject',
] as const;

/**
 * connect_originate (the HBONE tunnels' HTTP/2 connections to ztunnels' :15008): the same, plus the
 * CONNECT streams reset (tx: by Envoy, as after a CONNECT refused with a 503; rx: by ztunnel) and
 * the connections a GOAWAY closed (upstream_cx_close_notify: a draining ztunnel's GOAWAY).
 */
export const TUNNEL_COUNTERS = [
  ...SERVICE_COUNTERS,
  'upstream_rq_tx_reset',
  'upstream_rq_rx_reset',
  'upstream_cx_close_notify',
] as const;

const CONNECT_ORIGINATE = 'connect_originate';
const isReported = (cluster: string): boolean =>
  cluster === CONNECT_ORIGINATE || cluster.startsWith('outbound|');
const countersOf = (cluster: string): readonly string[] =>
  cluster === CONNECT_ORIGINATE ? TUNNEL_COUNTERS : SERVICE_COUNTERS;

export interface EnvoyCounterDelta {
  cluster: string;
  counter: string;
  first: number;
  last: number;
  delta: number;
}

export interface EnvoyCounters {
  /** The first and last gateway scrape (wall clock). */
  fromWallMs: number;
  toWallMs: number;
  deltas: EnvoyCounterDelta[];
}

const SAMPLE = /^envoy_cluster_([a-z0-9_]+)\{([^}]*)\}\s+(\S+)/;
/**
 * The cluster's tag: `cluster_name` with Istio's stats_config (its bootstrap's tag regexes, which
 * keep the service's dotted name whole: tools/packaging/common/envoy_bootstrap.json, as
 * mesh/pilot-agent/bootstrap.ts writes it), `envoy_cluster_name` with Envoy's default tags.
 */
const CLUSTER_LABEL = /(?:^|,)(?:envoy_)?cluster_name="((?:[^"\\]|\\.)*)"/;

/** The cluster, counter and value of one sample line of Envoy's Prometheus stats. */
export function parseClusterSample(
  line: string,
): { cluster: string; counter: string; value: number } | undefined {
  const m = SAMPLE.exec(line);
  const cluster = CLUSTER_LABEL.exec(m?.[2] ?? '')?.[1];
  const value = Number(m?.[3]);
  if (!m?.[1] || cluster === undefined || !Number.isFinite(value)) return undefined;
  return { cluster, counter: m[1], value };
}

/** The reported counters of one scrape, `cluster\0counter` -> value. */
function countersIn(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const s = parseClusterSample(line);
    if (!s || !isReported(s.cluster) || !countersOf(s.cluster).includes(s.counter)) continue;
    out.set(`${s.cluster}\u0000${s.counter}`, s.value);
  }
  return out;
}

/** The deltas over the run; undefined without two scrapes of a gateway pod. */
export function envoyCounterDeltas(scrapes: readonly Scrape[]): EnvoyCounters | undefined {
  const byPod = new Map<string, Scrape[]>();
  for (const s of scrapes) {
    if (s.target.job !== 'gateway') continue;
    byPod.set(s.target.pod, [...(byPod.get(s.target.pod) ?? []), s]);
  }
  const sums = new Map<string, { first: number; last: number }>();
  let fromWallMs = Infinity;
  let toWallMs = -Infinity;
  for (const list of byPod.values()) {
    const sorted = [...list].sort((a, b) => a.atWallMs - b.atWallMs);
    const [head, tail] = [sorted[0], sorted.at(-1)];
    if (!head || !tail || head === tail) continue;
    fromWallMs = Math.min(fromWallMs, head.atWallMs);
    toWallMs = Math.max(toWallMs, tail.atWallMs);
    const first = countersIn(head.text);
    for (const [key, last] of countersIn(tail.text)) {
      // A cluster Envoy had not yet been given at the first scrape counted from zero.
      const sum = sums.get(key) ?? { first: 0, last: 0 };
      sums.set(key, { first: sum.first + (first.get(key) ?? 0), last: sum.last + last });
    }
  }
  if (sums.size === 0) return undefined;
  const deltas = [...sums].map(([key, { first, last }]) => {
    const [cluster = '', counter = ''] = key.split('\u0000');
    return { cluster, counter, first, last, delta: last - first };
  });
  // The service's clusters first, then the tunnels'; counters in the lists' order.
  const rank = (d: EnvoyCounterDelta): number => (d.cluster === CONNECT_ORIGINATE ? 1 : 0);
  const index = (d: EnvoyCounterDelta): number => countersOf(d.cluster).indexOf(d.counter);
  deltas.sort((a, b) => rank(a) - rank(b) || a.cluster.localeCompare(b.cluster) || index(a) - index(b));
  return { fromWallMs, toWallMs, deltas };
}

/**
 * One line for the run's output: `Envoy counters over the run (gateway, upstream_*, 15.0 s between
 * its first and last scrape): outbound|8000||httpbin.default.svc.cluster.local cx_destroy_remote_with_active_rq 12, ...; connect_originate ...`.
 */
export function formatEnvoyCounters(counters: EnvoyCounters): string {
  const clusters = new Map<string, string[]>();
  for (const d of counters.deltas)
    clusters.set(d.cluster, [
      ...(clusters.get(d.cluster) ?? []),
      `${d.counter.replace(/^upstream_/, '')} ${String(d.delta)}`,
    ]);
  const seconds = ((counters.toWallMs - counters.fromWallMs) / 1000).toFixed(1);
  const parts = [...clusters].map(([cluster, values]) => `${cluster} ${values.join(', ')}`);
  return `Envoy counters over the run (gateway, upstream_*, ${seconds} s between its first and last scrape): ${parts.join('; ')}`;
}

/** envoy-counters.csv: one row per cluster and counter. */
export function envoyCounterRows(counters: EnvoyCounters | undefined): Record<string, string | number>[] {
  return (counters?.deltas ?? []).map((d) => ({
    cluster: d.cluster,
    counter: d.counter,
    first: d.first,
    last: d.last,
    delta: d.delta,
  }));
}
