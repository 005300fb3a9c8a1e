// kind with Istio's own control plane (--control-plane istio, issue 46) as the kind backend's
// provider: kind's (clusters/kind/provider.ts) with the option, and create() choosing the backend.
// A folder of its own: it brings kind and the existing-cluster backend together, and neither of them
// imports it.
import { badInput } from '../../lib/index.ts';
import { KIND_PROVIDER, kindOptionsOf } from '../kind/provider.ts';
import type { BackendOption } from '../backend-option.ts';
import type { BackendParams, BackendProvider } from '../provider.ts';

const CONTROL_PLANE: BackendOption = {
  key: 'control-plane',
  arg: '<ours|istio>',
  description: "kind: the mesh's control plane: ours | istio (Istio's own istiod, istio-cni and gateway)",
  detail:
    "ours: our istiod, istio-cni and gateway; istio: Istio's own, with pilot-agent and Envoy 1.40, built from the Go module proxy (istio.io/istio, one pinned pseudo-version) and installed with Istio's Helm charts; the ztunnel chart runs our ztunnel (speaking istiod's delta ADS, its gRPC CA and istio-cni's ZDS) or, with --ztunnel-impl istio-shared and ZTUNNEL_BINARY, istio/ztunnel's binary; the run then goes as --backend cluster's, in a namespace of its own",
  parse: (raw) => {
    if (raw !== 'ours' && raw !== 'istio') throw badInput('--control-plane', 'ours or istio', raw);
    return raw;
  },
  default: 'ours',
};

/**
 * --control-plane istio runs its load from inside the cluster (the run is --backend cluster's). Its
 * ztunnel is Istio's chart's DaemonSet, ours or istio/ztunnel's binary (--ztunnel-impl istio-shared);
 * kind refuses the binary in dedicated mode before this (no namespaces of the harness's making).
 */
function refuseWithIstio(params: BackendParams): void {
  if (params.ztunnelUpdate !== undefined && params.ztunnelUpdate !== 'surge')
    throw badInput(
      '--ztunnel-update',
      'surge with --control-plane istio',
      params.ztunnelUpdate,
      "Istio's ztunnel chart sets its DaemonSet's update strategy (values.yaml updateStrategy: maxSurge 1, maxUnavailable 0); run the other strategies with --control-plane ours",
    );
  if (params.loadFrom === 'host')
    throw badInput(
      '--load-from',
      'cluster with --control-plane istio',
      'host',
      "the run goes as --backend cluster's: fortio as a pod calling the gateway's ClusterIP",
    );
}

export const KIND_ISTIO_PROVIDER: BackendProvider<'kind'> = {
  ...KIND_PROVIDER,
  options: [...KIND_PROVIDER.options, CONTROL_PLANE],
  create: async (params, options) => {
    if (options.settings?.['control-plane'] !== 'istio') return KIND_PROVIDER.create(params, options);
    refuseWithIstio(params);
    const { createKindIstioBackend } = await import('./kind-istio-backend.ts');
    return createKindIstioBackend(kindOptionsOf(params, options), params.faultTarget);
  },
};
