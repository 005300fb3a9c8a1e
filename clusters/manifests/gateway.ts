import { deployment, service } from './workload.ts';
import type { V1Deployment, V1EnvVar, V1Service } from '@kubernetes/client-node';
import {
  ISTIO_DEFAULT_ATTEMPTS,
  ISTIO_DEFAULT_RETRY_ON,
  ROUTE_POLICY_METADATA,
} from '../../mesh/xds/route-policy.ts';
import type { RoutePolicy } from '../../mesh/xds/route-policy.ts';
import { GATEWAY_LISTENER_PORT } from '../../mesh/xds/router-config.ts';
import { NODE_LABEL } from './images.ts';
import { buildIstioProxyContainer } from './istio-proxy.ts';
import { CA_VOLUMES } from './mesh-credentials.ts';

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
  /** pilot-agent's EXIT_ON_ZERO_ACTIVE_CONNECTIONS: exit once no connection is active, not after 5 s. */
  exitOnZeroActiveConnections?: boolean;
}

/** The Istio gateway chart's proxy CPU limit (2000m), hence Envoy's concurrency. */
export const GATEWAY_DEFAULT_CONCURRENCY = 2;

/** The gateway's listener on the pod (mesh/xds GATEWAY_LISTENER_PORT). */
export const GATEWAY_PORT = GATEWAY_LISTENER_PORT;
export const GATEWAY_SERVICE_PORT = 80;
/** The gateway Service's nodePort on kind, mapped by kind to the host so k6 can run there. */
export const GATEWAY_NODE_PORT = 30080;

/**
 * An Istio ingress gateway Deployment + Service routing everything to httpbin:8000: pilot-agent and
 * Envoy configured by the control plane. That default route's VirtualService/DestinationRule
 * settings ride in the node metadata (mesh/xds/route-policy.ts); Gateways selecting these labels
 * and their VirtualServices add hosts of their own (kind). Plain mode is Istio's
 * ISTIO_META_DISABLE_HBONE_SEND.
 */
export function buildGateway(options: GatewayManifestOptions): [V1Deployment, V1Service] {
  const labels = { app: 'istio-ingressgateway', istio: 'ingressgateway' };
  const pool = {
    ...(options.upstreamIdleTimeoutS === undefined
      ? {}
      : { idleTimeoutMs: options.upstreamIdleTimeoutS * 1000 }),
    ...(options.maxRequestsPerConnection
      ? { maxRequestsPerConnection: options.maxRequestsPerConnection }
      : {}),
    ...(options.maxConnectionDurationS
      ? { maxConnectionDurationMs: options.maxConnectionDurationS * 1000 }
      : {}),
  };
  const policy: Partial<RoutePolicy> = {
    ...(options.retryOn !== undefined || options.numRetries !== undefined
      ? {
          retries: {
            attempts: options.numRetries ?? ISTIO_DEFAULT_ATTEMPTS,
            retryOn: options.retryOn ?? ISTIO_DEFAULT_RETRY_ON,
          },
        }
      : {}),
    ...(Object.keys(pool).length ? { connectionPool: pool } : {}),
    ...(options.hboneIdleTimeoutS ? { hboneIdleTimeoutMs: options.hboneIdleTimeoutS * 1000 } : {}),
  };
  const env: V1EnvVar[] = [
    ...(options.mode === 'plain' ? [{ name: 'ISTIO_META_DISABLE_HBONE_SEND', value: 'true' }] : []),
    ...(options.exitOnZeroActiveConnections
      ? [{ name: 'EXIT_ON_ZERO_ACTIVE_CONNECTIONS', value: 'true' }]
      : []),
    ...(Object.keys(policy).length
      ? [{ name: `ISTIO_META_${ROUTE_POLICY_METADATA}`, value: JSON.stringify(policy) }]
      : []),
  ];
  const gateway: V1Deployment = deployment({
    name: 'istio-ingressgateway',
    namespace: 'istio-system',
    labels,
    spec: {
      serviceAccountName: 'istio-ingressgateway',
      nodeSelector: { [NODE_LABEL]: options.node ?? 'node-1' },
      volumes: CA_VOLUMES,
      containers: [
        buildIstioProxyContainer({
          type: 'router',
          env,
          ports: [{ containerPort: GATEWAY_PORT, name: 'http2' }],
          cpuLimitCores: options.concurrency ?? GATEWAY_DEFAULT_CONCURRENCY,
          readiness: true,
        }),
      ],
    },
  });
  const gatewayService = service({
    name: 'istio-ingressgateway',
    namespace: 'istio-system',
    labels,
    ...(options.nodePort === undefined ? {} : { type: 'NodePort' as const }),
    ports: [
      {
        name: 'http2',
        port: GATEWAY_SERVICE_PORT,
        targetPort: GATEWAY_PORT,
        ...(options.nodePort === undefined ? {} : { nodePort: options.nodePort }),
      },
    ],
  });
  return [gateway, gatewayService];
}
