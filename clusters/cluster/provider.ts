// The existing-cluster backend as a provider (clusters/provider.ts): a cluster where Istio ambient
// already runs, reached with the user's kubeconfig; what it can do, its columns, its options.
import { badInput } from '../../lib/index.ts';
import { ENVOY } from '../../lib/install/index.ts';
import type { BackendOption } from '../backend-option.ts';
import type { BackendProvider } from '../provider.ts';
import { parseGatewayRef, parseKubeconfigPath, parseNamespaceName } from './cluster-flags.ts';
import { DEFAULT_GATEWAY } from './existing-options.ts';

function parseContext(raw: string): string {
  if (!/^[A-Za-z0-9]\S*$/.test(raw) || raw.length > 253)
    throw badInput('--context', 'a context name of the kubeconfig (kubectl config get-contexts)', raw);
  return raw;
}

function parseRegistry(raw: string): string {
  // Docker's rule: the first component names a registry when it has a dot or a port, or is localhost.
  const host = '(localhost|[a-z0-9-]+(\\.[a-z0-9-]+)+|[a-z0-9.-]+:\\d{1,5})(:\\d{1,5})?';
  if (!new RegExp(`^${host}(/[a-z0-9._-]+)*/?$`).test(raw) || raw.length > 200)
    throw badInput(
      '--image-registry',
      'a registry host and path (registry.example.com/team, localhost:5000)',
      raw,
    );
  return raw;
}

const OPTIONS: BackendOption[] = [
  {
    key: 'kubeconfig',
    arg: '<path>',
    description: 'cluster: the kubeconfig (default: $KUBECONFIG or ~/.kube/config)',
    parse: parseKubeconfigPath,
  },
  {
    key: 'context',
    arg: '<name>',
    description: "cluster: the kubeconfig's context (default: its current context)",
    parse: parseContext,
  },
  {
    key: 'istio-namespace',
    arg: '<ns>',
    description: "cluster: where Istio's control plane and ztunnel are",
    parse: parseNamespaceName,
    default: 'istio-system',
  },
  {
    key: 'gateway',
    arg: '<namespace/service>',
    description: 'cluster: the ingress gateway Service the load goes through',
    parse: parseGatewayRef,
    default: `${DEFAULT_GATEWAY.namespace}/${DEFAULT_GATEWAY.name}`,
  },
  {
    key: 'allow-ztunnel-restart',
    description:
      "cluster: let E1 and E3 restart the cluster's ztunnel DaemonSet (every meshed pod on its nodes)",
    detail:
      "it leaves kubectl's restartedAt annotation on its pod template (a GitOps controller reverting it restarts ztunnel again)",
    default: false,
  },
  {
    key: 'all-istio-logs',
    description: "cluster: keep the whole logs of Istio's namespaces' pods in the run folder",
    detail:
      "default: only the run's pods, and the lines of Istio's pods that concern the run: other tenants' traffic stays out",
    default: false,
  },
  {
    key: 'image-registry',
    arg: '<registry>',
    description: 'cluster: pull httpbin and fortio from <registry>/<name>:<tag>',
    detail: 'default: the nodes have them, as a kind cluster of ours does',
    parse: parseRegistry,
  },
];

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** --gateway's value: parsed from the command line, or its default's text. */
const gatewayOf = (v: unknown): { namespace: string; name: string } =>
  typeof v === 'string' ? parseGatewayRef(v) : (v as { namespace: string; name: string });

export const CLUSTER_PROVIDER: BackendProvider<'cluster'> = {
  name: 'cluster',
  summary: 'an existing cluster where Istio ambient runs (your kubeconfig; see docs/guide/your-cluster.md)',
  // Istio's ambient as the cluster runs it: ztunnel in the pods, fortio as a pod calling the
  // gateway's ClusterIP, the components' logs followed through the API server.
  capabilities: new Set(['inPodZtunnel', 'loadInCluster', 'componentLogs']),
  columns: [
    {
      name: 'cluster_context',
      role: 'bookkeeping',
      note: "cluster: the kubeconfig's context",
      added: { since: 15, olderRowsRan: '' },
    },
    {
      name: 'istio_version',
      role: 'parameter',
      note: "cluster: Istio's version (istiod's image tag); kind with --control-plane istio: the istio.io/istio pseudo-version built and its commit",
      added: { since: 15, olderRowsRan: '' },
    },
    {
      name: 'ztunnel_image',
      role: 'bookkeeping',
      note: "cluster and kind: the ztunnel DaemonSet's image (kind: ours, or with --ztunnel-impl istio-shared `ztunnel-harness/istio-ztunnel:<first 16 hex of ZTUNNEL_BINARY's sha256>`, built at run time; older kind rows leave it empty)",
      added: { since: 15, olderRowsRan: '' },
    },
    {
      name: 'control_plane',
      role: 'parameter',
      note: "kind: istio with --control-plane istio (Istio's own istiod, istio-cni and gateway); empty: the backend's own (ours on local and kind, the cluster's with --backend cluster)",
      added: { since: 16, olderRowsRan: '' },
    },
  ],
  // Nothing is pulled (the nodes have the images or pull them): pods start in seconds.
  readyTimeoutMs: 180_000,
  // Measured (.ci/kind, 2026-11-27, a fresh clone): E2 with 20 s of load took 64 s in all against a
  // kept kind cluster (preflight, namespace, probe 5 s; fortio's files and the namespace's deletion
  // after the load; check-runs and cleanup included), about 40 s beyond the load.
  runOverheadS: 40,
  bringUpText: "the cluster's preflight, its API and watches, the run's namespace and route",
  manifestProfile: { ztunnel: { inPod: true, podNetnsByPath: true }, gateway: {} },
  options: OPTIONS,
  // The gateway runs the cluster's Envoy (Istio's proxyv2); nothing runs from here.
  prepareTools: () => Promise.resolve({ path: '(the cluster gateway)', version: ENVOY.version }),
  create: async (params, { clock, settings = {}, logDir, write }) =>
    (await import('./existing-backend.ts')).createExistingBackend({
      clock,
      ...(text(settings['kubeconfig']) ? { kubeconfig: text(settings['kubeconfig']) as string } : {}),
      ...(text(settings['context']) ? { context: text(settings['context']) as string } : {}),
      ...(text(settings['istio-namespace'])
        ? { istioNamespace: text(settings['istio-namespace']) as string }
        : {}),
      ...(settings['gateway'] ? { gateway: gatewayOf(settings['gateway']) } : {}),
      allowZtunnelRestart: settings['allow-ztunnel-restart'] === true,
      allIstioLogs: settings['all-istio-logs'] === true,
      ...(text(settings['image-registry'])
        ? { imageRegistry: text(settings['image-registry']) as string }
        : {}),
      ...(params.faultTarget ? { faultTarget: params.faultTarget } : {}),
      logDir: logDir ?? 'results/cluster-logs/pods',
      stepLogDir: logDir ? `${logDir}/../steps` : 'results/cluster-logs/steps',
      ...(write ? { onLogs: write, onProgress: write } : {}),
    }),
};
