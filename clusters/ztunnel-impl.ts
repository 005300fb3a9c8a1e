// The ztunnel implementations a run can put in the mesh, as data (as backends are, provider.ts):
// what each one is, where it runs, what it needs of the machine. A scenario lists the ones that can
// carry its traffic and take its fault (run/cluster-scenario.ts `ztunnelImpls`); a backend says
// how it runs them (the local one: clusters/local/provider.ts).
import { existsSync } from 'node:fs';

export const ZTUNNEL_IMPL_NAMES = ['ours', 'istio', 'istio-shared'] as const;
export type ZtunnelImplName = (typeof ZTUNNEL_IMPL_NAMES)[number];

export interface ZtunnelImpl {
  name: ZtunnelImplName;
  /**
   * node: the ztunnel DaemonSet, one per node, serving its pods (ours in-pod mode; istio-shared in
   * shared mode); beside-pod: istio/ztunnel in dedicated mode, one per httpbin pod.
   */
  placement: 'node' | 'beside-pod';
  /** istio/ztunnel's own binary, which the user brings (ZTUNNEL_BINARY). */
  isUpstreamBinary: boolean;
  /** Each pod in a network namespace of its own (the binary binds its listeners inside them; root). */
  needsPodNamespaces: boolean;
  /** Why only some scenarios can run with it (the refusal's hint). */
  serves: string;
}

export const ZTUNNEL_IMPLS: Readonly<Record<ZtunnelImplName, ZtunnelImpl>> = {
  ours: {
    name: 'ours',
    placement: 'node',
    isUpstreamBinary: false,
    needsPodNamespaces: false,
    serves: 'every scenario',
  },
  istio: {
    name: 'istio',
    placement: 'beside-pod',
    isUpstreamBinary: true,
    needsPodNamespaces: true,
    serves:
      'istio/ztunnel runs in dedicated mode beside each httpbin pod: the rollout of those pods (E2) is what it can serve; for its upgrade (E1) use --ztunnel-impl istio-shared',
  },
  'istio-shared': {
    name: 'istio-shared',
    placement: 'node',
    isUpstreamBinary: true,
    needsPodNamespaces: true,
    serves:
      'istio/ztunnel runs as the ztunnel DaemonSet in shared mode: the scenarios whose traffic it carries and whose fault it can take are listed',
  },
};

export function isZtunnelImplName(name: unknown): name is ZtunnelImplName {
  return (ZTUNNEL_IMPL_NAMES as readonly unknown[]).includes(name);
}

/**
 * Where ztunnel's listeners are: inside each pod's network namespace (Istio ambient's in-pod mode,
 * every backend), or on each node's address (kind's older mode, kept by name: `--ztunnel-mode
 * node-address`).
 */
export const ZTUNNEL_MODES = ['in-pod', 'node-address'] as const;
export type ZtunnelMode = (typeof ZTUNNEL_MODES)[number];

/**
 * The binary alone (a run's `--ztunnel-binary`, else ZTUNNEL_BINARY), or why it cannot be used: what
 * istio/ztunnel in shared mode with our CA over gRPC needs (any build: no FAKE_CA, no test root).
 */
export function ztunnelBinaryFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  given?: string,
): { binary: string } | string {
  const binary = given || env['ZTUNNEL_BINARY'];
  const from = given ? '--ztunnel-binary' : 'ZTUNNEL_BINARY';
  if (!binary) return 'needs ZTUNNEL_BINARY or --ztunnel-binary (an istio/ztunnel binary)';
  if (!existsSync(binary)) return `${from} ${binary} does not exist`;
  return { binary };
}
