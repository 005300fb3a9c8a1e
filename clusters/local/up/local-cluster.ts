// One local cluster as its bring-up steps, its API and its teardown share it: what it was asked
// for, the state every controller and kubelet reads, and the parts the steps start (each step
// fills its own; teardown stops whichever were started).
import type { Clock, HarnessError, Logger } from '../../../lib/index.ts';
import type { ControlPlane } from '../../../mesh/control-plane/index.ts';
import type { NodeAgentServer } from '../../../mesh/node-agent/index.ts';
import type { TokenIssuer } from '../../../mesh/pki/index.ts';
import type { Emitter, EventLog } from '../../events.ts';
import type { CloseCapture } from '../../netns/wire-closes.ts';
import type { NetworkWorld } from '../../netns/network-world.ts';
import type { AddressPool } from '../address-pool.ts';
import type { ClusterState } from '../cluster-state.ts';
import type { CpuGroups, CpuIsolation } from '../cpu-cgroups.ts';
import type { LocalImage } from '../images.ts';
import type { Kubelet } from '../kubelet.ts';
import type { LocalBackendOptions } from '../local-options.ts';
import type { TimingModel } from '../timing-model.ts';

export interface LocalNode {
  name: string;
  ip: string;
}

export interface LocalCluster {
  readonly options: LocalBackendOptions;
  readonly clock: Clock;
  readonly log: Logger;
  readonly timing: TimingModel;
  readonly nodes: readonly LocalNode[];
  readonly addresses: AddressPool;
  readonly events: EventLog;
  readonly state: ClusterState;
  readonly cpuIsolation: CpuIsolation;
  /** A lifecycle event now, from the harness unless the call names who saw it. */
  readonly emit: Emitter;
  /** A component failed: every onFailure listener is told. */
  fail(err: HarnessError): void;
  readonly failureListeners: Set<(err: HarnessError) => void>;
  /** Filled by the steps of up(), in order (up/steps.ts). */
  parts: LocalParts;
}

export interface LocalParts {
  runDir?: string;
  logDir?: string;
  cpuGroups?: CpuGroups;
  tokens?: TokenIssuer;
  world?: NetworkWorld;
  closeCapture?: CloseCapture;
  controlPlane?: ControlPlane;
  /** The images kubelets run: the built-in ones, the user's, istio/ztunnel's as the DaemonSet. */
  images?: ReadonlyMap<string, LocalImage>;
  /** The ZDS relay's binary (istio-shared): node agents speak ZDS through it. */
  relayBinary?: string;
  agents: NodeAgentServer[];
  kubelets: Kubelet[];
  stopControllers?: () => void;
}

/** A part an earlier step made; its absence is a step out of order (a bug, not bad input). */
export function partOf<K extends keyof LocalParts>(
  cluster: LocalCluster,
  part: K,
): NonNullable<LocalParts[K]> {
  const value = cluster.parts[part];
  if (value === undefined) throw new Error(`local cluster: ${part} is used before the step that makes it`);
  return value;
}
