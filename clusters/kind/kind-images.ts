import { IMAGES } from '../manifests/index.ts';

/**
 * Each image the manifests name on kind, built from one Dockerfile stage (`docker build --target`,
 * provision/app-images.ts) and loaded into the nodes: no node pulls anything. httpbin is go-httpbin
 * v2.26.0 built from its module (the published image's name and entrypoint, our build of it).
 */
export const KIND_IMAGES = [
  { image: IMAGES.ztunnel, target: 'ztunnel' },
  { image: IMAGES.proxy, target: 'proxyv2' },
  { image: IMAGES.client, target: 'client' },
  { image: IMAGES.istiod, target: 'istiod' },
  { image: IMAGES.cni, target: 'install-cni' },
  { image: IMAGES.httpbin, target: 'httpbin' },
  { image: IMAGES.fortio, target: 'fortio' },
  // go-httpbin's routes with Istio's echo server's shutdown in its place (--app-shutdown echo).
  { image: IMAGES.faultServer, target: 'fault-server' },
] as const;
