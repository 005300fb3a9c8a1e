// What a local cluster is asked to be: its nodes, addresses, timing model, network and ztunnel.
import type { Clock, Logger } from '../../lib/index.ts';
import type { RootMaterial } from '../../mesh/pki/index.ts';
import type { CpuIsolation } from './cpu-cgroups.ts';
import type { LocalImage, LocalTools } from './images.ts';
import type { IstioSharedCa } from './istio-shared-ztunnel.ts';
import type { TimingModel } from './timing-model.ts';

export interface LocalBackendOptions {
  nodeCount?: number;
  /** 127.<block>.0.0/16 for this cluster; random in 150-249 by default. */
  addressBlock?: number;
  timing?: Partial<TimingModel>;
  clock?: Clock;
  log?: Logger;
  /** Container logs are written here when set (else into the cluster's temporary folder). */
  logDir?: string;
  /**
   * Pods that ask for it (POD_NETWORK_ANNOTATION) get a network namespace of their own, on a bridge
   * per node (clusters/netns/network-world.ts; root only).
   */
  netns?: boolean;
  /** Set inside every pod namespace (netns): per-namespace sysctls, e.g. net.ipv4.tcp_migrate_req. */
  podSysctls?: Readonly<Record<string, string>>;
  /** The mesh CA's root instead of a fresh one (istio/ztunnel's test root, for its FAKE_CA). */
  caRoot?: RootMaterial;
  /** Images beyond the built-in ones (istio/ztunnel's binary brought by the user). */
  images?: ReadonlyMap<string, LocalImage>;
  /**
   * istio/ztunnel's binary as the ztunnel DaemonSet in shared mode (--ztunnel-impl istio-shared;
   * needs `netns`, and with `ca: 'fake'` the test root as `caRoot`): each DaemonSet pod in a
   * namespace of its own, the node agent speaking ZDS (mesh/zds; Go builds its relay), discovery
   * over delta ADS and certificates from the gRPC CA (clusters/local/istio-shared-ztunnel.ts).
   */
  istioShared?: { binary: string; ca?: IstioSharedCa };
  /** Where the harness's tools are (Envoy); default the pinned copies in .tools. */
  tools?: LocalTools;
  /**
   * cpu cgroups (root, cgroup v1): each node's pods in one of their own and the load generator in
   * another, equal cpu.shares; nodes-pinned adds cpusets (clusters/local/cpu-cgroups.ts). Default none.
   */
  cpuIsolation?: CpuIsolation;
  /** Test only (planted regression late-removal): the control plane's holdRemovalsMs. */
  holdRemovalsMs?: number;
}
