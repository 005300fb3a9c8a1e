import { ErrorCode, HarnessError } from '../../../lib/index.ts';
import { startControlPlane } from '../../../mesh/control-plane/index.ts';
import { ISTIO_CA_AUDIENCE } from '../../../mesh/pki/index.ts';
import type { LifecycleEventKind } from '../../events.ts';
import { createStateSource } from '../state-source.ts';
import type { LocalCluster } from './local-cluster.ts';
import { partOf } from './local-cluster.ts';

/** The control plane (xDS for Envoy and ztunnel, the CA) on the cluster's state, its pushes as events. */
export async function controlPlaneStep(cluster: LocalCluster): Promise<void> {
  const { options, state, timing, addresses } = cluster;
  const emit = (kind: LifecycleEventKind, object: string, detail?: string): void => {
    cluster.emit(kind, object, { ...(detail ? { detail } : {}), source: 'control-plane' });
  };
  const issuer = partOf(cluster, 'tokens');
  const world = cluster.parts.world;
  cluster.parts.controlPlane = await startControlPlane({
    ...(options.caRoot ? { caRoot: options.caRoot } : {}),
    source: createStateSource(state),
    // TokenReview by the local API server: its signature, and the bound pod still existing.
    authenticate: (token) =>
      issuer.review(
        token,
        ISTIO_CA_AUDIENCE,
        (namespace, name) => state.pods.get(`${namespace}/${name}`)?.uid,
      ),
    clock: cluster.clock,
    log: cluster.log.child({ component: 'control-plane' }),
    host: addresses.controlPlane(),
    // istio/ztunnel's binary runs in a namespace of its own: it reaches the host at the world's address.
    ...(world ? { ztunnelXdsHost: world.hostAddress } : {}),
    debounceQuietMs: timing.debounceQuietMs,
    debounceMaxMs: timing.debounceMaxMs,
    pushLatencyMs: timing.pushLatencyMs,
    ...(options.holdRemovalsMs ? { holdRemovalsMs: options.holdRemovalsMs } : {}),
    onNack: (nack) => {
      emit('xds-nack', nack.node, `${nack.typeUrl.replace(/^.*\./, '')} ${nack.version}: ${nack.message}`);
    },
    onPush: (report) => {
      emit(
        'push',
        'control-plane',
        `version ${report.version}, acked ${String(report.acked)}/${String(report.subscribers)}`,
      );
      for (const w of report.becameUnhealthy) emit('workload-unhealthy-pushed', `${w.namespace}/${w.name}`);
      for (const w of report.removed) emit('workload-removed-pushed', `${w.namespace}/${w.name}`);
    },
  }).catch((err: unknown) => {
    throw new HarnessError(
      ErrorCode.ComponentFailed,
      `the control plane could not start on ${addresses.controlPlane()} (is another local cluster using address block ${String(addresses.block)}?): ${String(err)}`,
      { cause: err },
    );
  });
}
