import { IMAGES } from '../manifests/index.ts';

/**
 * Each of our images the manifests name, built from one Dockerfile stage (`docker build --target`).
 * httpbin is go-httpbin's published image, which kind's nodes pull themselves.
 */
export const KIND_IMAGES = [
  { image: IMAGES.ztunnel, target: 'ztunnel' },
  { image: IMAGES.proxy, target: 'proxyv2' },
  { image: IMAGES.client, target: 'client' },
  { image: IMAGES.istiod, target: 'istiod' },
] as const;
