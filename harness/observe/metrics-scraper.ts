// Prometheus scrapes of the mesh during the load: every ztunnel's :15020/metrics and the gateway's
// :15090/stats/prometheus every few seconds, as a Prometheus with Istio's scrape config would, so a
// run's metrics can be loaded into Prometheus (`promtool tsdb create-blocks-from openmetrics`) and
// read with PromQL and Istio's dashboards. Where the pods' addresses are reachable from the harness
// (capability podsFromHost: the local backend; on kind they are not).
import type { Clock } from '../../lib/index.ts';
import type { PodInfo } from '../../clusters/backend.ts';

export interface ScrapeTarget {
  job: 'ztunnel' | 'gateway';
  /** namespace/name */
  pod: string;
  url: string;
}

export interface Scrape {
  target: ScrapeTarget;
  atWallMs: number;
  text: string;
}

/** Istio's scrape targets among the pods: ztunnel :15020/metrics, the gateway's Envoy :15090. */
export function scrapeTargetsOf(pods: readonly PodInfo[]): ScrapeTarget[] {
  return pods.flatMap((p): ScrapeTarget[] => {
    if (p.isDeleting) return [];
    const pod = `${p.namespace}/${p.name}`;
    if (p.owner === 'daemonset/ztunnel')
      return [{ job: 'ztunnel', pod, url: `http://${p.podIp}:15020/metrics` }];
    if (p.owner === 'deployment/istio-ingressgateway')
      return [{ job: 'gateway', pod, url: `http://${p.podIp}:15090/stats/prometheus` }];
    return [];
  });
}

export interface MetricsScraper {
  /** The first scrape (at start) done: counters as they were before what is measured. */
  baseline: Promise<void>;
  /** Scrapes once more, stops, and returns every scrape in time order (idempotent). */
  stop(): Promise<Scrape[]>;
}

/** Scrapes every target each `intervalMs` until stopped; a target that does not answer is skipped. */
export function startMetricsScraper(options: {
  targets: () => ScrapeTarget[];
  clock: Clock;
  intervalMs?: number;
}): MetricsScraper {
  const scrapes: Scrape[] = [];
  const pending = new Set<Promise<void>>();
  const scrapeAll = (): void => {
    const atWallMs = options.clock.now() + options.clock.wallOffsetMs;
    for (const target of options.targets()) {
      const p = fetch(target.url, { signal: AbortSignal.timeout(2000) })
        .then(async (res) => {
          if (res.ok) scrapes.push({ target, atWallMs, text: await res.text() });
        })
        .catch(() => undefined) // a pod going away mid-scrape: Prometheus records a failed scrape too
        .finally(() => pending.delete(p));
      pending.add(p);
    }
  };
  scrapeAll();
  const baseline = Promise.all(pending).then(() => undefined);
  const timer = setInterval(scrapeAll, options.intervalMs ?? 5000);
  let stopped: Promise<Scrape[]> | undefined;
  return {
    baseline,
    stop() {
      stopped ??= (async () => {
        clearInterval(timer);
        // One last scrape as the load ends: counters over the run (explain/envoy-counters.ts) end
        // here rather than up to an interval earlier.
        scrapeAll();
        await Promise.all(pending);
        return scrapes.sort((a, b) => a.atWallMs - b.atWallMs);
      })();
      return stopped;
    },
  };
}
