import type { Clock } from '../../lib/index.ts';
import { createEmitter } from '../events.ts';
import type { Emitter, EventLog } from '../events.ts';
import type { AddressPool } from './address-pool.ts';
import type { ClusterState } from './cluster-state.ts';
import { nameComponent } from '../../lib/index.ts';

// The crash guard names an uncaught error in this file's code after this component (lib/components.ts).
nameComponent(import.meta.url, 'controller manager', 'file');

export interface ControllerOptions {
  state: ClusterState;
  clock: Clock;
  events: EventLog;
  addresses: AddressPool;
  nodes: { name: string; ip: string }[];
  /** istio/ztunnel in shared mode is the node's ztunnel (pod-factory.ts). */
  istioShared?: boolean;
}

/** What every controller of the manager shares: its options and the API server's event emitter. */
export interface ControllerContext extends ControllerOptions {
  emit: Emitter;
}

export function createControllerContext(options: ControllerOptions): ControllerContext {
  // Pods are created and deleted through the API server; rollouts are the controller's to judge.
  return { ...options, emit: createEmitter(options.events, options.clock, 'api-server') };
}
