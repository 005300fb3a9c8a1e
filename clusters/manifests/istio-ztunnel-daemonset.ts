import type { V1Container, V1DaemonSet, V1EnvVar } from '@kubernetes/client-node';
import { CA_ENV } from './mesh-credentials.ts';

/**
 * istio/ztunnel's discovery and CA on our control plane: one gRPC server with TLS and the caller's
 * bearer token (mesh/control-plane ZTUNNEL_XDS_PORT), where istiod serves both on 15012 beside its
 * JSON-free CA; ours keeps 15012 for our proxies' CA.
 */
export const ISTIOD_ZTUNNEL_XDS = 'https://istiod.istio-system.svc:15013';
/**
 * istio/ztunnel's RUST_LOG on kind (ours and Istio's chart): the chart's `info`, with xds::client at
 * debug, where the binary logs each xDS response from 1.30.0 on (src/xds/client.rs, istio/ztunnel#1723;
 * up to 1.29 at info).
 */
export const ISTIO_ZTUNNEL_LOG_LEVEL = 'info,ztunnel::xds::client=debug';

/** What the binary reads, as Istio's chart sets it (manifests/charts/ztunnel/templates/daemonset.yaml). */
function chartEnv(): V1EnvVar[] {
  const field = (name: string, fieldPath: string): V1EnvVar => ({
    name,
    valueFrom: { fieldRef: { fieldPath } },
  });
  const rootCa = CA_ENV.find((e) => e.name === 'CA_ROOT_CA')?.value ?? '';
  const token = CA_ENV.find((e) => e.name === 'AUTH_TOKEN')?.value ?? '';
  return [
    { name: 'CA_ADDRESS', value: ISTIOD_ZTUNNEL_XDS },
    { name: 'XDS_ADDRESS', value: ISTIOD_ZTUNNEL_XDS },
    // The chart leaves both to the binary's default, ./var/run/secrets/istio/root-cert.pem from its
    // working directory /; said in full here (src/config.rs 535-555).
    { name: 'CA_ROOT_CA', value: rootCa },
    { name: 'XDS_ROOT_CA', value: rootCa },
    // The projected istio-ca token, the chart's default path (src/config.rs 557-577).
    { name: 'AUTH_TOKEN', value: token },
    // The run's removal lag reads the binary's `received response ... removes=N` lines
    // (harness/explain/removal-lag.ts).
    { name: 'RUST_LOG', value: ISTIO_ZTUNNEL_LOG_LEVEL },
    { name: 'RUST_BACKTRACE', value: '1' },
    { name: 'ISTIO_META_CLUSTER_ID', value: 'Kubernetes' },
    { name: 'INPOD_ENABLED', value: 'true' },
    field('POD_NAME', 'metadata.name'),
    field('POD_NAMESPACE', 'metadata.namespace'),
    field('NODE_NAME', 'spec.nodeName'),
    field('INSTANCE_IP', 'status.podIP'),
    field('SERVICE_ACCOUNT', 'spec.serviceAccountName'),
  ];
}

/**
 * The ztunnel DaemonSet (buildZtunnelDaemonSet, in-pod) running istio/ztunnel's binary from `image`
 * as Istio's chart runs it: `proxy ztunnel`, the chart's environment and security context (root,
 * NET_ADMIN, SYS_ADMIN, NET_RAW, read-only root), the grace period and its
 * TERMINATION_GRACE_PERIOD_SECONDS kept, the experiment's arms' variables kept (the binary ignores
 * the ones it does not read), the ZDS socket's folder, the credentials, the probe and the surge kept.
 */
export function asIstioZtunnel(daemonSet: V1DaemonSet, image: string): V1DaemonSet {
  const spec = daemonSet.spec;
  const podSpec = spec?.template.spec;
  const [ours] = podSpec?.containers ?? [];
  if (!spec || !podSpec || !ours) throw new Error('asIstioZtunnel: the ztunnel DaemonSet has no container');
  const replaced = new Set([...chartEnv().map((e) => e.name), 'ZDS_ADDRESS', 'NODE_IP', 'INSTANCE']);
  const container: V1Container = {
    ...ours,
    image,
    args: ['proxy', 'ztunnel'],
    env: [...chartEnv(), ...(ours.env ?? []).filter((e) => !replaced.has(e.name))],
    securityContext: {
      allowPrivilegeEscalation: true,
      privileged: false,
      capabilities: { drop: ['ALL'], add: ['NET_ADMIN', 'SYS_ADMIN', 'NET_RAW'] },
      readOnlyRootFilesystem: true,
      runAsGroup: 1337,
      runAsNonRoot: false,
      runAsUser: 0,
    },
  };
  return {
    ...daemonSet,
    spec: { ...spec, template: { ...spec.template, spec: { ...podSpec, containers: [container] } } },
  };
}
