import { DEFAULT_TERMINATION_GRACE_S, deployment, service } from './workload.ts';
import type { V1Container, V1Deployment, V1EnvVar, V1Lifecycle, V1Service } from '@kubernetes/client-node';
import {
  DATAPLANE_MODE_LABEL,
  IMAGES,
  ISTIO_ZTUNNEL_IMAGE,
  POD_NETWORK_ANNOTATION,
  SIDECAR_INJECT_LABEL,
} from './images.ts';
import { buildIstioProxyContainer } from './istio-proxy.ts';
import { CA_VOLUMES } from './mesh-credentials.ts';

export interface HttpbinManifestOptions {
  replicas: number;
  /** ambient: pods enrolled in the mesh; off: plain pods (the 1.28 report's control arm). */
  mesh: 'ambient' | 'off';
  /** Kubernetes' default is 30 s. */
  graceS?: number;
  /** The 1.28 thread's workaround: a preStop sleep before SIGTERM. */
  preStopSleepS?: number;
  /** Extra container environment (e.g. IGNORE_SIGTERM=1 for the fault server in tests). */
  env?: Record<string, string>;
  /** The app's image: go-httpbin (default), or the fault server for tests that need its modes. */
  image?: string;
  /** Sidecar mode (seed 004): an istio-proxy container in front of the app, with pilot-agent's drain. */
  sidecar?: SidecarOptions;
  /**
   * istio/ztunnel's binary in dedicated mode beside the app, each pod in a network namespace of its
   * own (local backend, --ztunnel-impl istio): the real ztunnel on the destination side.
   */
  dedicatedZtunnel?: boolean;
  /** Each pod in a network namespace of its own (the local backend's --netns; implied by the above). */
  ownNetns?: boolean;
}

/** istio/ztunnel's own switch for dedicated mode: what a pod's container says, whatever its image. */
const DEDICATED_PROXY_MODE = { name: 'PROXY_MODE', value: 'dedicated' } as const;

/** A container that runs a ztunnel in dedicated mode (the pod's own, serving its namespace). */
export function runsDedicatedZtunnel(container: V1Container): boolean {
  return (container.env ?? []).some(
    (e) => e.name === DEDICATED_PROXY_MODE.name && e.value === DEDICATED_PROXY_MODE.value,
  );
}

/**
 * istio/ztunnel in dedicated mode (PROXY_MODE=dedicated: it serves the namespace it runs in) with
 * FAKE_CA and no xDS; the local backend adds the pod's static workload config (LOCAL_XDS) and
 * PROXY_WORKLOAD_INFO, which need the pod's name and address.
 */
function buildDedicatedZtunnelContainer(graceS: number): V1Container {
  return {
    name: 'istio-ztunnel',
    image: ISTIO_ZTUNNEL_IMAGE,
    env: [
      { name: 'FAKE_CA', value: 'true' },
      { name: 'XDS_ADDRESS', value: '' },
      DEDICATED_PROXY_MODE,
      // Original-source binding needs IP_TRANSPARENT routing the namespace does not have.
      { name: 'ENABLE_ORIG_SRC', value: 'false' },
      // Its drain deadline derives from it, as the chart sets it for the DaemonSet.
      { name: 'TERMINATION_GRACE_PERIOD_SECONDS', value: String(graceS) },
    ],
    ports: [{ containerPort: 15008, name: 'hbone' }],
  };
}

export interface SidecarOptions {
  exitOnZeroActiveConnections: boolean;
  /** Defaults 5 s each, as upstream. */
  terminationDrainDurationS?: number;
  minimumDrainDurationS?: number;
}

/** The injected istio-proxy: pilot-agent `proxy sidecar` and Envoy's inbound listener for the app. */
function buildSidecarContainer(options: SidecarOptions): V1Container {
  const env: V1EnvVar[] = [
    { name: 'ISTIO_META_HARNESS_APP_PORT', value: String(HTTPBIN_PORT) },
    { name: 'EXIT_ON_ZERO_ACTIVE_CONNECTIONS', value: String(options.exitOnZeroActiveConnections) },
  ];
  if (options.terminationDrainDurationS !== undefined)
    env.push({ name: 'TERMINATION_DRAIN_DURATION', value: `${String(options.terminationDrainDurationS)}s` });
  if (options.minimumDrainDurationS !== undefined)
    env.push({ name: 'MINIMUM_DRAIN_DURATION', value: `${String(options.minimumDrainDurationS)}s` });
  return buildIstioProxyContainer({ type: 'sidecar', env, ports: [], readiness: true });
}

export const HTTPBIN_PORT = 8080;
export const HTTPBIN_SERVICE_PORT = 8000;

/** Istio's samples/httpbin (go-httpbin on 8080, Service port 8000), with a readiness probe. */
export function buildHttpbin(options: HttpbinManifestOptions): [V1Deployment, V1Service] {
  const labels = { app: 'httpbin' };
  const lifecycle: V1Lifecycle | undefined =
    options.preStopSleepS === undefined
      ? undefined
      : { preStop: { sleep: { seconds: options.preStopSleepS } } };
  const podLabels = {
    ...labels,
    ...(options.mesh === 'ambient' ? { [DATAPLANE_MODE_LABEL]: 'ambient' } : {}),
    ...(options.sidecar ? { [SIDECAR_INJECT_LABEL]: 'true' } : {}),
  };
  const httpbin: V1Deployment = deployment({
    name: 'httpbin',
    namespace: 'default',
    labels,
    replicas: options.replicas,
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    podLabels,
    ...(options.dedicatedZtunnel || options.ownNetns
      ? { podAnnotations: { [POD_NETWORK_ANNOTATION]: 'netns' } }
      : {}),
    spec: {
      serviceAccountName: 'httpbin',
      ...(options.graceS === undefined ? {} : { terminationGracePeriodSeconds: options.graceS }),
      ...(options.sidecar ? { volumes: CA_VOLUMES } : {}),
      containers: [
        {
          name: 'httpbin',
          image: options.image ?? IMAGES.httpbin,
          ports: [{ containerPort: HTTPBIN_PORT, name: 'http' }],
          env: [
            // go-httpbin's own default; set so the fault server listens on the same port.
            { name: 'PORT', value: String(HTTPBIN_PORT) },
            { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            ...Object.entries(options.env ?? {}).map(([name, value]) => ({ name, value })),
          ],
          readinessProbe: { httpGet: { path: '/get', port: HTTPBIN_PORT }, periodSeconds: 10 },
          ...(lifecycle ? { lifecycle } : {}),
        },
        ...(options.sidecar ? [buildSidecarContainer(options.sidecar)] : []),
        ...(options.dedicatedZtunnel
          ? [buildDedicatedZtunnelContainer(options.graceS ?? DEFAULT_TERMINATION_GRACE_S)]
          : []),
      ],
    },
  });
  return [
    httpbin,
    service({
      name: 'httpbin',
      namespace: 'default',
      labels,
      ports: [{ name: 'http', port: HTTPBIN_SERVICE_PORT, targetPort: HTTPBIN_PORT }],
    }),
  ];
}
