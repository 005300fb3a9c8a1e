import { badInput, createLogger, createSystemClock } from '../../lib/index.ts';
import { ISTIO_CA_AUDIENCE } from '../../mesh/pki/index.ts';
import type { BackendDescription, ClusterBackend } from '../backend.ts';
import { createEmitter, createEventLog } from '../events.ts';
import { createAddressPool, pickAddressBlock } from './address-pool.ts';
import { createClusterState } from './cluster-state.ts';
import { GENERATOR_GROUP } from './cpu-cgroups.ts';
import { localAddresses } from './local-addresses.ts';
import type { LocalBackendOptions } from './local-options.ts';
import { checkLocalPreflight } from './local-preflight.ts';
import { tearDownLocalCluster } from './local-teardown.ts';
import { localWorkloadOps } from './local-workloads.ts';
import { normalizeTimingModel } from './timing-model.ts';
import type { LocalCluster } from './up/local-cluster.ts';
import { partOf } from './up/local-cluster.ts';
import { runLocalUpSteps } from './up/steps.ts';
import { nameComponent } from '../../lib/index.ts';

// The crash guard names an uncaught error in this folder's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'local API server');

export type { LocalBackendOptions };

/** What the local API server offers beyond the backend contract (tests use it as kubectl would). */
export interface LocalBackend extends ClusterBackend {
  /**
   * `kubectl create token <sa> --audience <aud>` (TokenRequest, not bound to a pod): a credential
   * for the CA as that service account. Only after up().
   */
  createToken(serviceAccount: { namespace: string; name: string }, audience?: string): Promise<string>;
  /** The mesh root (the istio-ca-root-cert ConfigMap's root-cert.pem). Only after up(). */
  meshRootPem(): string;
}

/**
 * close(): every container gets SIGTERM and this long to exit by itself (its handlers run: logs
 * flushed, connections closed), as `kubectl delete --grace-period=2` would; then SIGKILL. Short on
 * purpose: ztunnel's own drain would wait for the gateway's pooled connections until its deadline.
 * destroy(): SIGKILL at once (an aborted or crashed run).
 */
export const CLOSE_GRACE_MS = 2000;

/** The most nodes one local cluster runs (each is a kubelet, a ztunnel and its pods on these cores). */
export const MAX_NODES = 20;

/** The embedded default backend: Kubernetes semantics over real processes on loopback (docs/architecture.md, The local backend). */
export function createLocalBackend(options: LocalBackendOptions = {}): LocalBackend {
  const cluster = createLocalCluster(options);
  const { clock, events, timing, addresses, parts } = cluster;
  let closing: Promise<void> | undefined;
  return {
    kind: 'local',
    clock,
    up: () => runLocalUpSteps(cluster).then(() => undefined),
    ...localWorkloadOps(cluster),
    onEvent: (listener) => events.on(listener),
    events: () => events.all(),
    onFailure: (listener) => {
      cluster.failureListeners.add(listener);
      return () => cluster.failureListeners.delete(listener);
    },
    addresses: () => localAddresses(cluster),
    logs: (pod) => parts.kubelets.flatMap((k) => k.logs(pod)),
    preflight: () => checkLocalPreflight({ addresses, options, cpuIsolation: cluster.cpuIsolation }),
    describe: () => ({
      backend: 'local',
      nodes: cluster.nodes.length,
      timing_model: 'modelled',
      ztunnel_mode: 'in-pod',
      ingress_path: 'direct',
      address_block: addresses.block,
      // Where istio/ztunnel's binary got its certificates (--istio-shared-ca), when it is the DaemonSet.
      istio_shared_ca: options.istioShared ? (options.istioShared.ca ?? 'istiod') : '',
      ...(Object.fromEntries(
        Object.entries(timing).map(([k, v]) => [`timing_${k}`, v]),
      ) as BackendDescription),
    }),
    generatorCommand: (argv) =>
      parts.cpuGroups ? parts.cpuGroups.command(GENERATOR_GROUP, argv) : [...argv],
    close: () => (closing ??= tearDownLocalCluster(cluster, CLOSE_GRACE_MS)),
    destroy: () => {
      // An abort during a close: whatever is still running is killed now.
      if (closing) for (const k of parts.kubelets) void k.destroy(0);
      return (closing ??= tearDownLocalCluster(cluster, 0));
    },
    createToken: (serviceAccount, audience = ISTIO_CA_AUDIENCE) => {
      if (!parts.tokens) return Promise.reject(new Error('the cluster is not up'));
      return parts.tokens.issue(
        { namespace: serviceAccount.namespace, serviceAccount: serviceAccount.name },
        { audience, expirationSeconds: 3600 },
      );
    },
    meshRootPem: () => {
      if (!parts.controlPlane) throw new Error('the cluster is not up');
      return partOf(cluster, 'controlPlane').ca.rootPem;
    },
  };
}

/** The cluster as asked: checked, its nodes and addresses chosen, nothing started. */
function createLocalCluster(options: LocalBackendOptions): LocalCluster {
  const clock = options.clock ?? createSystemClock();
  const log = options.log ?? createLogger({ component: 'local-cluster', level: 'warn' });
  const timing = normalizeTimingModel(options.timing);
  const nodeCount = options.nodeCount ?? 2;
  if (!Number.isInteger(nodeCount) || nodeCount < 1 || nodeCount > MAX_NODES)
    throw badInput('the node count', `an integer 1-${String(MAX_NODES)}`, nodeCount);
  const addresses = createAddressPool(options.addressBlock ?? pickAddressBlock());
  const events = createEventLog();
  const cluster: LocalCluster = {
    options,
    clock,
    log,
    timing,
    nodes: Array.from({ length: nodeCount }, (_, i) => ({
      name: `node-${String(i + 1)}`,
      ip: addresses.node(i),
    })),
    addresses,
    events,
    state: createClusterState({ clock, watchFanoutMs: timing.watchFanoutMs }),
    cpuIsolation: options.cpuIsolation ?? 'none',
    // The harness's own (a rollout it starts); the control plane's step names its own source.
    emit: createEmitter(events, clock, 'harness'),
    fail: (err) => {
      log.error(err.message);
      for (const listener of cluster.failureListeners) listener(err);
    },
    failureListeners: new Set(),
    parts: { agents: [], kubelets: [] },
  };
  return cluster;
}
