// The columns a backend's describe() fills in every result row: one set for every backend, so local
// and kind rows share one runs.csv (and `npm run compare` reads either). The shared columns are here;
// each backend declares its own (its provider's `columns`), assembled by the registry. A backend
// leaves the columns that do not apply to it empty; a key outside this set is a programming error,
// caught by a test.
import type { BackendDescription } from './backend.ts';
import type { BackendColumnSpec } from './provider.ts';
import { BACKEND_OWN_COLUMNS } from './registry.ts';

export type { BackendDescription } from './backend.ts';
export type { BackendColumnRole } from './provider.ts';

/** What every backend says about itself, whatever it is. */
const SHARED_COLUMNS: readonly BackendColumnSpec[] = [
  {
    name: 'backend',
    role: 'parameter',
    note: 'the cluster backend that ran: local, kind or cluster (an existing cluster)',
  },
  { name: 'nodes', role: 'parameter', note: "the cluster's nodes" },
  {
    name: 'timing_model',
    role: 'bookkeeping',
    note: 'modelled (local: the `timing_*` columns say how) or measured (kind)',
  },
  {
    // A parameter since schema 14 (`--ztunnel-mode`): compare keys the two modes apart. Every kind
    // row before said node-address, every local row in-pod (and keys as before).
    name: 'ztunnel_mode',
    role: 'parameter',
    added: { since: 14, olderRowsRan: 'in-pod' },
    note: "where ztunnel's listeners are (`--ztunnel-mode`): in-pod (each pod's network namespace: the local backend's node agent, kind's istio-cni DaemonSet since schema 14) or node-address (kind's only mode before schema 14; by name since)",
  },
  {
    // A different path is a different configuration: compare keys kind's cluster and host rows apart
    // (schema 9 added it; rows before ran the local backend's direct path).
    name: 'ingress_path',
    role: 'parameter',
    added: { since: 9, olderRowsRan: 'direct' },
    note: "how the generator's connections reach the gateway: direct (local), docker-proxy+nodeport (kind --load-from host: Docker's userland proxy on the host port, then kube-proxy's NodePort DNAT/SNAT to a worker) or cluster-pod+clusterip (kind --load-from cluster: fortio as a pod outside the mesh, the gateway's ClusterIP through kube-proxy, as ASM ran it)",
  },
  {
    name: 'address_block',
    role: 'bookkeeping',
    note: "local: the cluster's 127.B.0.0/16 block (where the backend chooses the addresses)",
  },
];

/** Every backend column, declared once (shared, then each backend's own), in row order. */
export const BACKEND_COLUMN_SPECS: readonly BackendColumnSpec[] = [...SHARED_COLUMNS, ...BACKEND_OWN_COLUMNS];
const SPECS = BACKEND_COLUMN_SPECS;

export const BACKEND_COLUMNS: readonly string[] = SPECS.map((c) => c.name);

export type BackendColumn = string;

/** Every backend column, in one order, empty where `described` has no value. */
export function backendColumns(described: BackendDescription): Record<BackendColumn, string | number> {
  return Object.fromEntries(BACKEND_COLUMNS.map((c) => [c, described[c] ?? '']));
}
