import { join } from 'node:path';
import { ErrorCode, HarnessError, makeDirectory } from '../../../lib/index.ts';
import { startNodeAgentServer, startSharedZdsNodeAgent } from '../../../mesh/node-agent/index.ts';
import type { NodeAgentServer } from '../../../mesh/node-agent/index.ts';
import { podKey } from '../cluster-state.ts';
import { createKubelet, nodeTmpDir } from '../kubelet.ts';
import type { LocalCluster, LocalNode } from './local-cluster.ts';
import { partOf } from './local-cluster.ts';

/** Each node's agent (the socket its ztunnel listens on for pods: ours, or ZDS through the relay). */
function startNodeAgent(
  cluster: LocalCluster,
  node: LocalNode,
  socketPath: string,
): Promise<NodeAgentServer> {
  const relayBinary = cluster.parts.relayBinary;
  return relayBinary
    ? startSharedZdsNodeAgent({
        relayBinary,
        socketPath,
        log: cluster.log.child({ component: 'zds-node-agent', node: node.name }),
      })
    : startNodeAgentServer(socketPath);
}

/** Per node, its agent and its kubelet, which run the pods the controllers put on the node. */
export async function kubeletsStep(cluster: LocalCluster): Promise<void> {
  const { options, parts } = cluster;
  const runDir = partOf(cluster, 'runDir');
  const controlPlane = partOf(cluster, 'controlPlane');
  const tokens = partOf(cluster, 'tokens');
  const groups = parts.cpuGroups;
  for (const [index, node] of cluster.nodes.entries()) {
    const nodeRunDir = join(runDir, node.name);
    await makeDirectory(nodeTmpDir(nodeRunDir));
    const agent = await startNodeAgent(cluster, node, join(nodeRunDir, 'ztunnel.sock'));
    parts.agents.push(agent);
    parts.kubelets.push(
      createKubelet({
        node: { ...node, runDir: nodeRunDir },
        nodeIndex: index + 1,
        netns: () => parts.world,
        ...(options.podSysctls ? { podSysctls: options.podSysctls } : {}),
        ...(parts.images ? { images: parts.images } : {}),
        ...(options.tools ? { tools: options.tools } : {}),
        state: cluster.state,
        clock: cluster.clock,
        timing: cluster.timing,
        events: cluster.events,
        nodeAgent: agent,
        env: { resolveService: (name, namespace) => resolveService(cluster, name, namespace) },
        volumes: { tokens, rootCertPem: controlPlane.ca.rootPem },
        logDir: partOf(cluster, 'logDir'),
        ...(groups ? { inCpuGroup: (argv: string[]) => groups.command(node.name, argv) } : {}),
        onCrash: (pod, container, detail) => {
          cluster.fail(
            new HarnessError(
              ErrorCode.ComponentFailed,
              `pod ${podKey(pod)} on ${pod.nodeName}: container ${container} failed: ${detail}`,
            ),
          );
        },
      }),
    );
  }
}

/** A Service's address as the cluster's DNS would give it (istiod: the control plane's). */
function resolveService(cluster: LocalCluster, name: string, namespace: string): string | undefined {
  if (name === 'istiod' && namespace === 'istio-system') return cluster.addresses.controlPlane();
  return cluster.state.services.get(`${namespace}/${name}`)?.vip;
}
