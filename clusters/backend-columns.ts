// The columns a backend's describe() fills in every result row: one set for every backend, so local
// and kind rows share one runs.csv (and `npm run compare` reads either). The shared columns are here;
// each backend declares its own (its provider's `columns`), assembled by the registry. A backend
// leaves the columns that do not apply to it empty; a key outside this set is a programming error,
// caught by a test.
import type { BackendDescription } from './backend.ts';
import type { BackendColumnRole, BackendColumnSpec } from './provider.ts';
import { BACKEND_OWN_COLUMNS } from './registry.ts';

export type { BackendDescription } from './backend.ts';
export type { BackendColumnRole } from './provider.ts';

/** What every backend says about itself, whatever it is. */
const SHARED_COLUMNS: readonly BackendColumnSpec[] = [
  { name: 'backend', role: 'parameter' },
  { name: 'nodes', role: 'parameter' },
  /** `modelled` (local: the timing columns say how) or `measured` (kind). */
  { name: 'timing_model', role: 'bookkeeping' },
  /** How pods' traffic reaches ztunnel: `in-pod` (local, as istio-cni) or `node-address` (kind). */
  { name: 'ztunnel_mode', role: 'bookkeeping' },
  /**
   * How the load generator's connections reach the gateway: `direct` (local: the gateway's own
   * address) or `docker-proxy+nodeport` (kind: Docker's userland proxy on the host port, then the
   * NodePort rule's DNAT/SNAT to a worker). A different path: kind figures are not local figures.
   */
  { name: 'ingress_path', role: 'bookkeeping' },
  /** The block the cluster's addresses are taken from, where the backend chooses them (local's 127.x). */
  { name: 'address_block', role: 'bookkeeping' },
];

const SPECS: readonly BackendColumnSpec[] = [...SHARED_COLUMNS, ...BACKEND_OWN_COLUMNS];

export const BACKEND_COLUMNS: readonly string[] = SPECS.map((c) => c.name);

export type BackendColumn = string;

/** Every backend column, in one order, empty where `described` has no value. */
export function backendColumns(described: BackendDescription): Record<BackendColumn, string | number> {
  return Object.fromEntries(BACKEND_COLUMNS.map((c) => [c, described[c] ?? '']));
}

/**
 * How compare reads each backend column: `backend`, `nodes` and the timing model's values are
 * parameters; the rest follow from the backend or say where and with which versions it ran
 * (bookkeeping). Each backend declares its own columns' roles.
 */
export const BACKEND_COLUMN_ROLES: Readonly<Record<BackendColumn, BackendColumnRole>> = Object.fromEntries(
  SPECS.map((c) => [c.name, c.role]),
);
