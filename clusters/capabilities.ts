import { badInput } from '../lib/index.ts';
import type { HarnessError } from '../lib/index.ts';

/**
 * What a backend can do that an experiment may need. Each backend declares its set; a scenario and
 * the options that need one declare it; `refusal` derives the one message for what is missing.
 */
export const CAPABILITIES = {
  inPodCapture:
    "in-pod traffic capture: ztunnel inside each pod's network (on kind ztunnel runs in node-address mode, with no traffic redirection)",
  sidecarBesideApp:
    'a sidecar and its app in one pod on their own addresses (in a real pod they share one network namespace, and the images do not yet split their ports)',
  timingModel: "a timing model to override (kind measures the real latencies from the watches' timestamps)",
  containerSignals:
    'lifecycle events for the signals a container gets (kind sees pods through the API server: deletion, exit and removal, not SIGTERM or SIGKILL)',
  podNamespaces:
    "a network namespace per pod made by the harness, for ztunnel's in-pod listeners and istio/ztunnel's binary (kind's pods have theirs, made by its CNI, but the harness neither chooses them nor adds the binary)",
  perNetnsSysctls:
    "per-network-namespace sysctls where the listeners live (tcp_migrate_req would have to be set on kind's nodes)",
  cpuGroups:
    "cpu cgroups per node and for the load generator made by the harness (kind's nodes are containers whose cgroups Docker makes)",
} as const;
export type Capability = keyof typeof CAPABILITIES;

export type BackendName = 'local' | 'kind';

export const BACKEND_CAPABILITIES: Readonly<Record<BackendName, ReadonlySet<Capability>>> = {
  local: new Set(Object.keys(CAPABILITIES) as Capability[]),
  kind: new Set(),
};

/** Something an experiment asks for that needs a capability: the flag (or scenario) and its value. */
export interface Requirement {
  capability: Capability;
  flag: string;
  value: string | number;
  /** Why this needs it, when more specific than the capability's own description. */
  why?: string;
}

/** The bad-input error for the first requirement the backend lacks, or undefined when it has all. */
export function refusal(
  backend: BackendName,
  requirements: readonly Requirement[],
): HarnessError | undefined {
  const missing = requirements.find((r) => !BACKEND_CAPABILITIES[backend].has(r.capability));
  if (!missing) return undefined;
  const other = (Object.keys(BACKEND_CAPABILITIES) as BackendName[]).find((b) =>
    BACKEND_CAPABILITIES[b].has(missing.capability),
  );
  return badInput(
    missing.flag,
    `something --backend ${backend} can run`,
    missing.value,
    `it needs ${CAPABILITIES[missing.capability]}${missing.why ? `: ${missing.why}` : ''}${other ? `; run it with --backend ${other}` : ''}`,
  );
}
