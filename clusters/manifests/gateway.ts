import type { V1Deployment, V1EnvVar, V1Service } from '@kubernetes/client-node';
import { IMAGES, NODE_LABEL } from './images.ts';
import { CA_ENV, CA_VOLUME_MOUNTS, CA_VOLUMES } from './mesh-credentials.ts';

export interface GatewayManifestOptions {
  /** hbone: mesh-aware (the 1.28 report); plain: outside the mesh (the ASM test). */
  mode: 'hbone' | 'plain';
  /** Envoy retry_on; default Istio's. */
  retryOn?: string;
  numRetries?: number;
  maxConnectionDurationS?: number;
  upstreamIdleTimeoutS?: number;
  hboneIdleTimeoutS?: number;
  maxRequestsPerConnection?: number;
  /** The node it runs on (design: the gateway is its own pod on node 1). */
  node?: string;
  /** A NodePort Service on this port (kind: mapped to the host for k6); default ClusterIP. */
  nodePort?: number;
  /**
   * The proxy container's CPU limit in cores, which pilot-agent turns into Envoy's concurrency
   * (worker threads); the gateway chart's default limit is 2000m: 2 workers.
   */
  concurrency?: number;
}

/** The Istio gateway chart's proxy CPU limit (2000m), hence Envoy's concurrency. */
export const GATEWAY_DEFAULT_CONCURRENCY = 2;

export const GATEWAY_PORT = 8080;
export const GATEWAY_SERVICE_PORT = 80;
/** The gateway Service's nodePort on kind, mapped by kind to the host so k6 can run there. */
export const GATEWAY_NODE_PORT = 30080;

/** An Istio ingress gateway Deployment + Service, routing everything to httpbin:8000. */
export function buildGateway(options: GatewayManifestOptions): [V1Deployment, V1Service] {
  const labels = { app: 'istio-ingressgateway', istio: 'ingressgateway' };
  const optional: [string, number | string | undefined][] = [
    ['RETRY_ON', options.retryOn],
    ['NUM_RETRIES', options.numRetries],
    ['MAX_CONNECTION_DURATION_S', options.maxConnectionDurationS],
    ['UPSTREAM_IDLE_TIMEOUT_S', options.upstreamIdleTimeoutS],
    ['HBONE_IDLE_TIMEOUT_S', options.hboneIdleTimeoutS],
    ['MAX_REQUESTS_PER_CONNECTION', options.maxRequestsPerConnection],
  ];
  const env: V1EnvVar[] = [
    { name: 'GATEWAY_MODE', value: options.mode },
    { name: 'XDS_ADDRESS', value: 'istiod.istio-system.svc:15010' },
    ...CA_ENV,
    { name: 'ROUTE_SERVICE', value: 'default/httpbin' },
    { name: 'ROUTE_PORT', value: '8000' },
    { name: 'PORT', value: String(GATEWAY_PORT) },
    { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
    { name: 'INSTANCE', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    // As Istio's injection template sets it; pilot-agent takes Envoy's concurrency from it.
    { name: 'ISTIO_CPU_LIMIT', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
    ...optional.flatMap(([name, value]) => (value === undefined ? [] : [{ name, value: String(value) }])),
  ];
  const deployment: V1Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'istio-ingressgateway', namespace: 'istio-system', labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: 'istio-ingressgateway',
          nodeSelector: { [NODE_LABEL]: options.node ?? 'node-1' },
          volumes: CA_VOLUMES,
          containers: [
            {
              name: 'istio-proxy',
              image: IMAGES.gateway,
              env,
              volumeMounts: CA_VOLUME_MOUNTS,
              ports: [{ containerPort: GATEWAY_PORT, name: 'http2' }],
              resources: {
                limits: { cpu: `${String((options.concurrency ?? GATEWAY_DEFAULT_CONCURRENCY) * 1000)}m` },
              },
              readinessProbe: { httpGet: { path: '/healthz/ready', port: 15021 }, periodSeconds: 2 },
            },
          ],
        },
      },
    },
  };
  const service: V1Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'istio-ingressgateway', namespace: 'istio-system', labels },
    spec: {
      selector: labels,
      ...(options.nodePort === undefined ? {} : { type: 'NodePort' }),
      ports: [
        {
          name: 'http2',
          port: GATEWAY_SERVICE_PORT,
          targetPort: GATEWAY_PORT,
          ...(options.nodePort === undefined ? {} : { nodePort: options.nodePort }),
        },
      ],
    },
  };
  return [deployment, service];
}
