import type { V1Pod } from '@kubernetes/client-node';
import type { WorkloadRef } from '../backend.ts';

/**
 * Whose logs a run keeps in its folder, and which lines (an existing cluster: its own pods whole,
 * Istio's pods' lines that concern the run, nothing of anyone else's). Absent: every watched pod's,
 * whole (kind: the harness made the whole cluster).
 */
export interface LogScope {
  of(pod: V1Pod): 'whole' | 'lines' | 'none';
  /** Whether a line of a 'lines' pod is kept. */
  keeps(line: string): boolean;
}

/** kind's ingress gateway: once rolled out, 127.0.0.1:<ingressHostPort> reaches it. */
export const KIND_GATEWAY = {
  kind: 'Deployment',
  namespace: 'istio-system',
  name: 'istio-ingressgateway',
} as const;

/**
 * Which of a cluster's namespaces a run looks at and which it owns. On kind the harness made the whole
 * cluster: it watches and owns `default` and `istio-system`. On an existing cluster
 * (clusters/cluster/) it watches Istio's namespace and its own, and owns only its own: readiness,
 * the drain at close and the objects it deletes are its own namespace's, never the user's.
 */
export interface RunScope {
  /** Namespaces whose pods and EndpointSlices become lifecycle events, whose logs are followed. */
  readonly watched: ReadonlySet<string>;
  /** Namespaces whose every workload and pod is the run's (kube-system stays out of both). */
  readonly owned: ReadonlySet<string>;
  /** The ingress gateway's Deployment. */
  readonly gateway: WorkloadRef;
  readonly logs?: LogScope;
}

export const KIND_SCOPE: RunScope = {
  watched: new Set(['default', 'istio-system']),
  owned: new Set(['default', 'istio-system']),
  gateway: KIND_GATEWAY,
};
