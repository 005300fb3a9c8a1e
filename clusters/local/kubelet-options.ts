// What a node's kubelet is given (kubelet.ts starts it; its parts read the options through the context).
import type { Clock } from '../../lib/index.ts';
import type { NodeAgentServer } from '../../mesh/node-agent/index.ts';
import type { EventLog } from '../events.ts';
import type { NetworkWorld } from '../netns/network-world.ts';
import type { ClusterState, PodRecord } from './cluster-state.ts';
import type { EnvContext } from './container-env.ts';
import type { LocalImage, LocalTools } from './images.ts';
import type { VolumeContext } from './pod-volumes.ts';
import type { TimingModel } from './timing-model.ts';

export interface KubeletOptions {
  node: { name: string; ip: string; runDir: string };
  /** 1-based: the node's bridge in the netns world. */
  nodeIndex: number;
  /** The cluster's network-namespace world, when it has one. */
  netns?: () => NetworkWorld | undefined;
  /** Set inside each pod namespace (sysctl name -> value): the run's per-namespace settings. */
  podSysctls?: Readonly<Record<string, string>>;
  /** Images beyond the built-in ones (istio/ztunnel's binary brought by the user). */
  images?: ReadonlyMap<string, LocalImage>;
  tools?: LocalTools;
  state: ClusterState;
  clock: Clock;
  timing: TimingModel;
  events: EventLog;
  nodeAgent: NodeAgentServer;
  env: Omit<EnvContext, 'volumeDirs'>;
  volumes: Omit<VolumeContext, 'nodeRunDir'>;
  /** Where each container's log file goes (`<namespace>_<pod>_<container>.log`). */
  logDir: string;
  /**
   * The node's cpu cgroup (--cpu-isolation): a container's command line started inside it, so the
   * container and all it forks (pilot-agent's Envoy) share the node's CPU share.
   */
  inCpuGroup?: (argv: string[]) => string[];
  /** A container exited while its pod was not being deleted: the component crashed. */
  onCrash(pod: PodRecord, container: string, detail: string): void;
}
