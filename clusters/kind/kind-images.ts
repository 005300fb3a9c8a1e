import { IMAGES } from '../manifests/index.ts';

/** Each image the manifests name, built from one Dockerfile stage (`docker build --target`). */
export const KIND_IMAGES = [
  { image: IMAGES.ztunnel, target: 'ztunnel' },
  { image: IMAGES.httpbin, target: 'httpbin' },
  { image: IMAGES.gateway, target: 'gateway' },
  { image: IMAGES.sidecar, target: 'sidecar' },
  { image: IMAGES.client, target: 'client' },
  { image: IMAGES.istiod, target: 'istiod' },
] as const;
