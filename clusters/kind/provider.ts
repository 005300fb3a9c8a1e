// The kind backend as a provider (clusters/provider.ts): a real Kubernetes cluster in Docker, what
// it cannot do that the local backend can, the columns it fills, its own options.
import { badInput, PROJECT_ROOT } from '../../lib/index.ts';
import { ENVOY } from '../../lib/install/index.ts';
import { GATEWAY_NODE_PORT } from '../manifests/index.ts';
import type { BackendOption } from '../backend-option.ts';
import type { BackendParams, BackendProvider, CreateBackendOptions } from '../provider.ts';
import type { KindBackendOptions } from './kind-options.ts';
import { ztunnelBinaryFromEnv } from '../ztunnel-impl.ts';
import { DEFAULT_INGRESS_HOST_PORT } from './kind-options.ts';

/** A TCP port, decimal digits only (Number() would also take "1e3", "0x10" and " 5 "). */
function parsePort(raw: string): number {
  const port = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw badInput('--kind-ingress-port', 'an integer from 1 to 65535', raw);
  return port;
}

/** `auto`, or a Docker image reference (name[:tag][@digest], no spaces). */
function parseNodeImage(raw: string): string {
  const isReference =
    /^[a-z0-9][a-z0-9._/:-]*(@sha256:[0-9a-f]{64})?$/.test(raw) && /[a-z]/.test(raw.split('@')[0] ?? '');
  if (raw === 'auto' || (isReference && raw.length <= 255)) return raw;
  throw badInput('--node-image', 'auto or an image reference (name:tag, name@sha256:...)', raw);
}

/** --kind-ingress-port, which kind-smoke takes too. */
export const KIND_INGRESS_PORT = {
  key: 'kind-ingress-port',
  arg: '<port>',
  description: "kind: the host port (on 127.0.0.1) kind maps the gateway's nodePort to; k6 sends there",
  parse: parsePort,
  default: DEFAULT_INGRESS_HOST_PORT,
} as const satisfies BackendOption;

/** --node-image, which kind-smoke takes too. */
export const KIND_NODE_IMAGE = {
  key: 'node-image',
  arg: '<auto|ref>',
  description: 'kind: the node image: auto, or an image reference the Docker engine has',
  detail:
    "auto: kind's official image when it can be had and runs on this host's cgroup version, else ours built from the package registries, cached",
  parse: parseNodeImage,
  default: 'auto',
} as const satisfies BackendOption;

export const KIND_PROVIDER: BackendProvider<'kind'> = {
  name: 'kind',
  summary: 'kind (needs Docker and kind; see README)',
  // It measures what the local backend models, and sees pods only through the API server; ztunnel
  // runs in the pods (istio-cni's node agent hands them over); its load can come from a pod inside it;
  // its containers' logs are followed into the run folder as they run (log-followers.ts).
  capabilities: new Set([
    'inPodZtunnel',
    'nodeAddressZtunnel',
    'upstreamZtunnelDaemonSet',
    'controlPlaneDebounce',
    'loadInCluster',
    'hostIngress',
    'componentLogs',
    'gatewayAccessLog',
    'faultServerWorkload',
    'gatewayRollout',
    'ztunnelUpdateStrategies',
    'cniDaemonSet',
    'nodeDrain',
  ]),
  columns: [
    { name: 'kind_cluster', role: 'bookkeeping', note: 'kind: the cluster name' },
    { name: 'kind_version', role: 'bookkeeping', note: 'kind: `kind version`' },
    { name: 'docker_server_version', role: 'bookkeeping', note: "kind: the Docker engine's version" },
    { name: 'kubernetes_version', role: 'bookkeeping', note: "kind and cluster: the API server's version" },
    {
      // Schema 13: older kind rows said it inside kubernetes_version ("v1.34.4 (node image ..., ...)").
      name: 'node_image',
      role: 'bookkeeping',
      note: 'kind: the node image that ran and where it came from: built here, built here earlier (cached by the hash of its inputs), official (pulled or present) or given (`--node-image <ref>`); before schema 13 it was inside kubernetes_version',
      added: { since: 13, olderRowsRan: '' },
    },
    {
      // Schema 17: empty at istiod's default, which older kind rows ran (no arm reached kind's istiod).
      name: 'debounce_after_ms',
      role: 'parameter',
      note: "kind: istiod's PILOT_DEBOUNCE_AFTER, ms, where the debounce arm set it (`--timing debounceQuietMs=<ms>`, ours or Istio's istiod); empty: istiod's default, 100 ms",
      added: { since: 17, olderRowsRan: '' },
    },
  ],
  // kind pulls nothing (images are loaded) but schedules real pods and probes them: give it longer.
  readyTimeoutMs: 300_000,
  // Measured (suite seeds --backend kind --only E2, 2 cores, images cached): a 40 s entry's runs took
  // 164-179 s (cluster 45 s, images loaded 68 s, istiod and the workload 10 s, teardown); the first
  // run of a changed tree builds our images too (+147 s).
  runOverheadS: 130,
  bringUpText:
    'Docker engine, kind, the node image and our images (built once, from the package registries), the kind cluster, images loaded, istiod (minutes; each step timed, its log in the run folder)',
  // ztunnel in the pods, each pod's namespace named by its /proc path (the node agent's), the gateway
  // on a NodePort.
  manifestProfile: {
    ztunnel: { inPod: true, podNetnsByPath: true },
    gateway: { nodePort: GATEWAY_NODE_PORT },
  },
  options: [
    KIND_INGRESS_PORT,
    KIND_NODE_IMAGE,
    {
      key: 'keep-cluster',
      description: 'kind: leave the cluster running after the run (kubectl; kind delete cluster)',
      default: false,
    },
  ],
  // The gateway and sidecar run the proxyv2 image's Envoy; nothing to provision here.
  prepareTools: () => Promise.resolve({ path: '/usr/local/bin/envoy', version: ENVOY.version }),
  create: async (params, options) =>
    (await import('./kind-backend.ts')).createKindBackend(kindOptionsOf(params, options)),
};

/**
 * --ztunnel-impl istio-shared on kind: --ztunnel-binary or ZTUNNEL_BINARY (any build: it asks our CA over gRPC), in-pod
 * mode (the binary has no node-address mode). Refused (exit 2) before anything starts otherwise.
 */
function istioZtunnelBinaryOf(params: BackendParams): string {
  if (params.ztunnelMode === 'node-address')
    throw badInput(
      '--ztunnel-impl istio-shared',
      'in-pod mode (the default --ztunnel-mode)',
      'with --ztunnel-mode node-address',
      "istio/ztunnel's binary serves pods from inside their network namespaces; it has no node-address mode",
    );
  const real = ztunnelBinaryFromEnv(process.env, params.ztunnelBinary);
  if (typeof real === 'string') throw badInput('--ztunnel-impl istio-shared', "istio/ztunnel's binary", real);
  return real.binary;
}

/** A run's kind options from its parameters and the backend's settings (ZTUNNEL_BINARY read here). */
export function kindOptionsOf(
  params: BackendParams,
  { clock, settings = {}, kubeconfigPath, logDir, write }: CreateBackendOptions,
): KindBackendOptions {
  const ingressHostPort = settings['kind-ingress-port'];
  const nodeImage = settings['node-image'];
  const istioZtunnelBinary = params.ztunnelImpl === 'istio-shared' ? istioZtunnelBinaryOf(params) : undefined;
  const debounceAfterMs = params.timing?.['debounceQuietMs'];
  return {
    ...(istioZtunnelBinary ? { istioZtunnelBinary } : {}),
    ...(debounceAfterMs !== undefined ? { debounceAfterMs } : {}),
    clock,
    projectRoot: PROJECT_ROOT,
    ...(typeof ingressHostPort === 'number' ? { ingressHostPort } : {}),
    ...(settings['keep-cluster'] === true ? { keepCluster: true } : {}),
    ...(typeof nodeImage === 'string' ? { nodeImage } : {}),
    ...(params.loadFrom ? { loadFrom: params.loadFrom } : {}),
    ...(params.ztunnelMode ? { ztunnelMode: params.ztunnelMode } : {}),
    ...(kubeconfigPath ? { kubeconfigPath } : {}),
    // Pod logs into the run folder (runDir/pods), a failed run's `kind export logs` beside them.
    ...(logDir ? { logDir } : {}),
    ...(write ? { onLogs: write, onProgress: write } : {}),
    onKubeconfig: (path) =>
      write?.(`kind: the cluster's kubeconfig is ${path} (KUBECONFIG=${path} kubectl get pods -A)\n`),
  };
}
