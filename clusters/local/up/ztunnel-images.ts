import { join } from 'node:path';
import { ensureZdsRelay } from '../../../mesh/zds/index.ts';
import { IMAGES } from '../../manifests/index.ts';
import { istioSharedZtunnelImage } from '../istio-shared-ztunnel.ts';
import type { LocalCluster } from './local-cluster.ts';
import { partOf } from './local-cluster.ts';

/**
 * The images the kubelets run: the user's beside the built-in ones, and with --ztunnel-impl
 * istio-shared istio/ztunnel's binary as the ztunnel image, its node agents speaking ZDS through
 * the relay (Go builds it).
 */
export async function ztunnelImagesStep(cluster: LocalCluster): Promise<void> {
  const shared = cluster.options.istioShared;
  if (!shared) {
    if (cluster.options.images) cluster.parts.images = cluster.options.images;
    return;
  }
  const controlPlane = partOf(cluster, 'controlPlane');
  const runDir = partOf(cluster, 'runDir');
  cluster.parts.relayBinary = await ensureZdsRelay();
  cluster.parts.images = new Map([
    ...(cluster.options.images ?? []),
    [
      IMAGES.ztunnel,
      istioSharedZtunnelImage({
        binary: shared.binary,
        nodeRunDir: (name) => join(runDir, name),
        xds: { address: controlPlane.ztunnelXdsAddress, rootCertPem: controlPlane.ca.rootPem },
        ...(shared.ca ? { ca: shared.ca } : {}),
      }),
    ],
  ]);
}
