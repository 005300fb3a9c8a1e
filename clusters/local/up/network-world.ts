import { join } from 'node:path';
import { createNetworkWorld } from '../../netns/network-world.ts';
import { startCloseCapture, WIRE_CLOSES_LOG, wireCaptureUnavailable } from '../../netns/wire-closes.ts';
import type { LocalCluster } from './local-cluster.ts';
import { partOf } from './local-cluster.ts';

/**
 * --netns: the network world (a namespace per pod that asks, a bridge per node) and, where tcpdump
 * runs, the capture of what the gateway saw of each HBONE close (FIN or RST) for the deadlines'
 * accounting.
 */
export async function networkWorldStep(cluster: LocalCluster): Promise<void> {
  if (!cluster.options.netns) return;
  const world = await createNetworkWorld({ nodes: cluster.nodes.length });
  cluster.parts.world = world;
  cluster.addresses.attachNetns((node) => world.reserve(node));
  if (await wireCaptureUnavailable()) return;
  cluster.parts.closeCapture = await startCloseCapture({
    inNs: (argv) => world.clusterCommand(argv),
    device: world.uplink,
    logPath: join(partOf(cluster, 'logDir'), WIRE_CLOSES_LOG),
  });
}
