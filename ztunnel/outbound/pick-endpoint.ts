import type { WorkloadEntry } from '../../mesh/discovery/index.ts';

/**
 * One endpoint for a new outbound connection: random among HEALTHY endpoints, weighted by capacity
 * (istio/ztunnel src/state.rs load_balance: `choose_weighted` over healthy workloads). Only HBONE
 * workloads: this ztunnel tunnels everything. Chosen once per TCP connection; undefined = "no healthy upstream".
 */
export function pickEndpoint(
  endpoints: readonly WorkloadEntry[],
  random: () => number = Math.random,
): WorkloadEntry | undefined {
  const healthy = endpoints.filter((w) => w.status === 'HEALTHY' && w.protocol === 'HBONE' && w.capacity > 0);
  const total = healthy.reduce((sum, w) => sum + w.capacity, 0);
  let r = random() * total;
  for (const w of healthy) {
    r -= w.capacity;
    if (r < 0) return w;
  }
  return healthy.at(-1);
}
