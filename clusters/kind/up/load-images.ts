import { KIND_IMAGES } from '../kind-images.ts';
import type { KindUp } from './kind-up.ts';

/**
 * The load-images step: every image a kind run names into every node (none is pulled), and
 * istio/ztunnel's binary's image when it runs as the ztunnel DaemonSet.
 */
export function loadImagesStep(up: KindUp): Promise<void> {
  return up.run.tools.loadImages({
    name: up.run.settings.name,
    images: [
      ...KIND_IMAGES.map((i) => i.image),
      ...(up.run.provisioned?.istioZtunnelImage ? [up.run.provisioned.istioZtunnelImage] : []),
    ],
    platform: up.platform,
  });
}
