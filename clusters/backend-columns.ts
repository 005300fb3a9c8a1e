// The columns a backend's describe() fills in every result row: one set for every backend, so local
// and kind rows share one runs.csv (and `npm run compare` reads either). A backend leaves the columns
// that do not apply to it empty; a key outside this set is a programming error, caught by a test.
import { TIMING_MODEL_KEYS } from './local/timing-model.ts';

export const BACKEND_COLUMNS = [
  'backend',
  'nodes',
  /** `modelled` (local: the timing columns say how) or `measured` (kind). */
  'timing_model',
  /** How pods' traffic reaches ztunnel: `in-pod` (local, as istio-cni) or `node-address` (kind). */
  'ztunnel_mode',
  /**
   * How the load generator's connections reach the gateway: `direct` (local: the gateway's own
   * address) or `docker-proxy+nodeport` (kind: Docker's userland proxy on the host port, then the
   * NodePort rule's DNAT/SNAT to a worker). A different path: kind figures are not local figures.
   */
  'ingress_path',
  'address_block',
  'kind_cluster',
  'kind_version',
  'docker_server_version',
  'kubernetes_version',
  ...TIMING_MODEL_KEYS.map((k) => `timing_${k}`),
] as const;

export type BackendColumn = (typeof BACKEND_COLUMNS)[number];

/** What a backend records with every result. */
export type BackendDescription = Partial<Record<BackendColumn, string | number>>;

/** Every backend column, in one order, empty where `described` has no value. */
export function backendColumns(described: BackendDescription): Record<BackendColumn, string | number> {
  return Object.fromEntries(BACKEND_COLUMNS.map((c) => [c, described[c] ?? '']));
}
