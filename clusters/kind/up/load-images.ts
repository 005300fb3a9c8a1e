import { KIND_IMAGES } from '../kind-images.ts';
import type { KindTools } from '../kind-tools.ts';

/** The load-images step: every image a kind run names into every node (none is pulled). */
export function loadImagesStep(options: { tools: KindTools; name: string; platform: string }): Promise<void> {
  return options.tools.loadImages({
    name: options.name,
    images: KIND_IMAGES.map((i) => i.image),
    platform: options.platform,
  });
}
