import { ztunnelUpdateStrategy } from '../ztunnel-update.ts';
import type { ZtunnelUpdate } from '../ztunnel-update.ts';
import type { V1Container, V1DaemonSet, V1EnvVar } from '@kubernetes/client-node';
import { IMAGES } from './images.ts';
import { daemonSet } from './workload.ts';
import { NETNS_PIN_VOLUME } from './istio-cni-daemonset.ts';
import { CA_ENV, CA_VOLUME_MOUNTS, CA_VOLUMES } from './mesh-credentials.ts';

export interface ZtunnelManifestOptions {
  /** terminationGracePeriodSeconds and TERMINATION_GRACE_PERIOD_SECONDS together, as the chart sets them. */
  graceS: number;
  /**
   * More environment variables: the experiment's arms that ztunnel reads (DRAIN_STRATEGY, seed 003's
   * per-pod drain option; POOL_BACKOFF, the HBONE client pool's back-off; both off upstream).
   */
  env?: Readonly<Record<string, string>>;
  /**
   * true (default, upstream's in-pod mode): listeners inside each pod, pods from the CNI node agent
   * over the ZDS socket. false: node-address mode for kind (hostNetwork, one HBONE listener on the
   * node's IP, pods from discovery, readiness by an exec probe on a file; ztunnel/main.ts).
   */
  inPod?: boolean;
  /**
   * In-pod mode with kind's node agent (mesh/node-agent/main.ts), which names each pod's network
   * namespace by the runtime's pin of it (/var/run/netns/cni-...) where upstream's istio-cni passes
   * the namespace's fd over ZDS: ztunnel mounts the node's pins to open them, and runs as root with
   * the chart's capabilities (NET_ADMIN, SYS_ADMIN, NET_RAW; entering a namespace needs SYS_ADMIN).
   */
  podNetnsByPath?: boolean;
  /** How the DaemonSet replaces its pods (--ztunnel-update; default the chart's surge). */
  update?: ZtunnelUpdate;
}

/** Where node-address mode writes its readiness file (removed when the drain starts). */
export const ZTUNNEL_READY_FILE = '/tmp/ztunnel-ready';

/**
 * ztunnel as Istio's chart deploys it (manifests/charts/ztunnel): a DaemonSet in istio-system with
 * maxSurge 1 / maxUnavailable 0, the grace period mirrored into TERMINATION_GRACE_PERIOD_SECONDS, a
 * readiness probe on :15021 /healthz/ready, and the ZDS socket directory from the host. Unlike the
 * chart it asks the scheduler for no CPU or memory (the chart's `ztunnel.resources.requests` would
 * only make a small kind node refuse it), and it sets no limit, so nothing defaults a request.
 */
export function buildZtunnelDaemonSet(options: ZtunnelManifestOptions): V1DaemonSet {
  const labels = { app: 'ztunnel' };
  const inPod = options.inPod ?? true;
  const probeTiming = { periodSeconds: 10, timeoutSeconds: 1, failureThreshold: 3, successThreshold: 1 };
  const modeEnv: V1EnvVar[] = inPod
    ? [{ name: 'ZDS_ADDRESS', value: '/var/run/ztunnel/ztunnel.sock' }]
    : [
        { name: 'INPOD_ENABLED', value: 'false' },
        { name: 'READY_FILE', value: ZTUNNEL_READY_FILE },
      ];
  const container: V1Container = {
    name: 'istio-proxy',
    image: IMAGES.ztunnel,
    env: [
      ...CA_ENV,
      { name: 'XDS_ADDRESS', value: 'istiod.istio-system.svc:15010' },
      ...modeEnv,
      { name: 'TERMINATION_GRACE_PERIOD_SECONDS', value: String(options.graceS) },
      ...Object.entries(options.env ?? {}).map(([name, value]) => ({ name, value })),
      { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
      { name: 'NODE_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
      { name: 'INSTANCE_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      { name: 'INSTANCE', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    ],
    // In node-address mode (hostNetwork) no port is declared: the API server defaults every declared
    // port's hostPort to its containerPort on a hostNetwork pod (kubernetes pkg/apis/core/v1
    // defaults.go, defaultHostNetworkPorts), and the scheduler places no second pod claiming that
    // host port on the node, so the chart's maxSurge 1 / maxUnavailable 0 rollout would deadlock: the
    // surge pod Pending, the old one never removed (KEP-1591, "The most common conflict is use of
    // HostPort"). Nothing reads the declaration (the metrics scraper dials :15020 by number), and
    // both instances bind their ports with SO_REUSEPORT, as in the local backend.
    ...(inPod ? { ports: [{ containerPort: 15020, name: 'ztunnel-stats', protocol: 'TCP' }] } : {}),
    // On the node's network every instance shares :15021, so an HTTP probe could be answered by the
    // other instance during an upgrade; the file is this container's own.
    readinessProbe: inPod
      ? { httpGet: { port: 15021, path: '/healthz/ready' }, ...probeTiming }
      : { exec: { command: ['test', '-e', ZTUNNEL_READY_FILE] }, ...probeTiming },
    ...(options.podNetnsByPath
      ? {
          securityContext: {
            runAsUser: 0,
            runAsGroup: 1337,
            runAsNonRoot: false,
            capabilities: { add: ['NET_ADMIN', 'SYS_ADMIN', 'NET_RAW'], drop: ['ALL'] },
          },
        }
      : {}),
    volumeMounts: [
      ...CA_VOLUME_MOUNTS,
      ...(inPod ? [{ mountPath: '/var/run/ztunnel', name: 'cni-ztunnel-sock-dir' }] : []),
      ...(options.podNetnsByPath ? [{ ...NETNS_PIN_VOLUME.mount, readOnly: true }] : []),
    ],
  };
  return daemonSet({
    name: 'ztunnel',
    namespace: 'istio-system',
    labels,
    updateStrategy: ztunnelUpdateStrategy(options.update ?? 'surge'),
    spec: {
      serviceAccountName: 'ztunnel',
      terminationGracePeriodSeconds: options.graceS,
      volumes: [
        ...CA_VOLUMES,
        ...(inPod
          ? [
              {
                name: 'cni-ztunnel-sock-dir',
                hostPath: { path: '/var/run/ztunnel', type: 'DirectoryOrCreate' },
              },
            ]
          : []),
        ...(options.podNetnsByPath ? [NETNS_PIN_VOLUME.volume] : []),
      ],
      // Node-address mode: the node's network, and cluster DNS for istiod's Service name.
      ...(inPod ? {} : { hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' }),
      containers: [container],
    },
  });
}
