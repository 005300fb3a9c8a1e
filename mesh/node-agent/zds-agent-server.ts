// The node agent's server for a node whose ztunnel is istio/ztunnel's own binary: istio-cni's ZDS
// (mesh/zds, which this folder uses and which uses nothing of it) behind the NodeAgentServer
// interface our node agents use, so the local backend's kubelets and kind's istio-cni DaemonSet
// (mesh/node-agent/main.ts, ZTUNNEL_PROTOCOL=zds) enrol pods into the binary as they do into ours.
import type { Logger } from '../../lib/index.ts';
import { startZdsNodeAgent, startZdsRelay } from '../zds/index.ts';
import type { ZdsAgentEvent, ZdsPod } from '../zds/index.ts';
import type { NodeAgentServer } from './node-agent-server.ts';

/**
 * The node agent for a node whose ztunnel is istio/ztunnel: startZdsNodeAgent on a zds-relay
 * serving the node's socket, behind the NodeAgentServer interface. addWorkload becomes
 * podAdded (AddWorkload with the pod's netns fd, to the newest instance) and delWorkload podDeleted
 * (to every instance); the hooks our ztunnel alone has (ShutdownStarting, CNI DEL) have no ZDS
 * message and do nothing.
 */
export async function startSharedZdsNodeAgent(options: {
  relayBinary: string;
  socketPath: string;
  log: Logger;
  onEvent?(event: ZdsAgentEvent): void;
}): Promise<NodeAgentServer & { nacks(): number }> {
  const pods = new Map<string, ZdsPod>();
  const relay = await startZdsRelay({
    binary: options.relayBinary,
    mode: 'serve',
    socketPath: options.socketPath,
  });
  let nacks = 0;
  const agent = startZdsNodeAgent({
    relay,
    snapshot: () => [...pods.values()],
    onEvent: (event) => {
      if (event.kind === 'nack') nacks++;
      options.onEvent?.(event);
    },
  });
  return {
    path: options.socketPath,
    instances: () => [],
    addWorkload: async (w) => {
      const pod: ZdsPod = {
        uid: w.uid,
        workloadInfo: { name: w.name, namespace: w.namespace, serviceAccount: w.serviceAccount },
        ...(w.netns ? { netnsPath: w.netns } : {}),
      };
      pods.set(w.uid, pod);
      // No ztunnel yet (bring-up): the pod goes in the first instance's snapshot.
      if (agent.connections === 0) return;
      try {
        await agent.podAdded(pod);
      } catch (err) {
        // istio-cni returns a nack as a retryable error (cni/pkg/nodeagent/net_linux.go 139-149),
        // and ztunnel retries the pod itself every 5 s (src/inpod/workloadmanager.rs): the pod
        // starts; the nack is counted and logged.
        options.log.warn(`ZDS AddWorkload ${w.namespace}/${w.name}: ${String(err)}`);
      }
    },
    delWorkload: async (uid) => {
      pods.delete(uid);
      await agent.podDeleted(uid);
    },
    shutdownStarting: () => Promise.resolve(),
    cniDel: () => Promise.resolve(),
    whenSnapshotAcked: () =>
      Promise.reject(new Error('whenSnapshotAcked: the ZDS agent has no instance names')),
    nacks: () => nacks,
    close: () => agent.close(),
  };
}
