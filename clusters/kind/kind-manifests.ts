import { deployment, service } from '../manifests/workload.ts';
import type {
  KubernetesObject,
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1Deployment,
  V1Namespace,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import { READINESS_PATH, READINESS_PORT } from '../../mesh/control-plane/readiness-server.ts';
import { IMAGES, NODE_LABEL } from '../manifests/index.ts';
import { buildIstioCni, ISTIO_CNI_DAEMONSET } from '../manifests/istio-cni-daemonset.ts';
import type { ZtunnelMode } from '../ztunnel-impl.ts';
import { DEFAULT_DEBOUNCE_AFTER_MS } from './kind-options.ts';

/** The control plane's Deployment, which the kind backend waits for before the mesh goes in. */
export const ISTIOD = { kind: 'Deployment', namespace: 'istio-system', name: 'istiod' } as const;
/** istio-cni's node agent, which the kind backend waits for with istiod. */
export const ISTIO_CNI = ISTIO_CNI_DAEMONSET;

/**
 * The name Istio gave its mTLS xDS port 15011 when pilot served Envoy there (the Istio 1.0 chart's
 * charts/pilot/templates/service.yaml: `port: 15011, name: https-xds # mTLS`, beside `grpc-xds`
 * 15010); today's istiod serves Envoy's xDS on 15012 beside the CA, named `https-dns`.
 */
export const ENVOY_XDS_PORT_NAME = 'https-xds';
/**
 * istio/ztunnel's delta ADS and gRPC CA (mesh/control-plane ZTUNNEL_XDS_PORT 15013; istiod serves
 * them on 15012, where ours serves our proxies' CA): --ztunnel-impl istio-shared's XDS_ADDRESS.
 */
export const ZTUNNEL_XDS_PORT_NAME = 'grpc-ztunnel';

const serviceAccount = (namespace: string, name: string): V1ServiceAccount => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, namespace },
});

/**
 * What a real cluster needs before the shared manifests (clusters/manifests) can run, and what the
 * local backend provides by itself: the istio-system namespace, the service accounts the pods name,
 * and istiod (its image is mesh/control-plane/main.ts) with read access to pods, services and
 * Istio's Gateways and VirtualServices (up/control-plane.ts applies their CRDs first), and
 * the rights its CA needs (TokenReview, the istio-ca-root-cert ConfigMap it writes into each
 * namespace whose proxies mount it). Its ports: discovery for ztunnel on 15010, Envoy's mTLS ADS on
 * 15011 (mesh/control-plane ENVOY_XDS_PORT; the gateway's and the sidecar's pilot-agent dial
 * istiod.istio-system.svc:15011, clusters/manifests/istio-proxy.ts), the CA on 15012, istio/ztunnel's
 * delta ADS and gRPC CA on 15013 (`istioZtunnel`: istio-cni then speaks ZDS to the binary).
 * HBONE to an ambient pod goes to the pod's own address (ztunnel listens inside the pod, handed it by
 * istio-cni's node agent, applied with istiod: clusters/manifests/istio-cni-daemonset.ts); with
 * `--ztunnel-mode node-address`, to its node's (`hostIP:15008`), and there is no node agent. It is Ready (GET /ready on 8080, the chart's probe) only once the
 * istio-ca-root-cert ConfigMaps exist, so the mesh's pods, applied after istiod is Ready, find them.
 */
export function buildKindControlPlane(
  ztunnelMode: ZtunnelMode = 'in-pod',
  options: { istioZtunnel?: boolean; debounceAfterMs?: number } = {},
): KubernetesObject[] {
  const inPod = ztunnelMode === 'in-pod';
  const labels = { app: 'istiod' };
  const namespace: V1Namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'istio-system' } };
  const role: V1ClusterRole = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'istiod-ztunnel-harness' },
    rules: [
      { apiGroups: [''], resources: ['pods', 'services'], verbs: ['get', 'list', 'watch'] },
      // The gateway's routes: Istio's Gateway and VirtualService (their CRDs applied before istiod).
      {
        apiGroups: ['networking.istio.io'],
        resources: ['gateways', 'virtualservices'],
        verbs: ['get', 'list', 'watch'],
      },
      // The CA: TokenReview of callers' tokens; the mesh root published as istio-ca-root-cert.
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create', 'update'] },
    ],
  };
  const binding: V1ClusterRoleBinding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'istiod-ztunnel-harness' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'istiod-ztunnel-harness' },
    subjects: [{ kind: 'ServiceAccount', name: 'istiod', namespace: 'istio-system' }],
  };
  const istiod: V1Deployment = deployment({
    name: ISTIOD.name,
    namespace: ISTIOD.namespace,
    labels,
    spec: {
      serviceAccountName: 'istiod',
      // Beside the gateway on node-1, away from the workloads' churn on node-2 (when there is one).
      nodeSelector: { [NODE_LABEL]: 'node-1' },
      containers: [
        {
          name: 'discovery',
          image: IMAGES.istiod,
          env: [
            { name: 'AMBIENT_TUNNEL', value: inPod ? 'pod' : 'node' },
            {
              name: 'PILOT_DEBOUNCE_AFTER',
              value: String(options.debounceAfterMs ?? DEFAULT_DEBOUNCE_AFTER_MS),
            },
            { name: 'PILOT_DEBOUNCE_MAX', value: '10000' },
          ],
          ports: [
            { containerPort: 15010, name: 'grpc-xds' },
            { containerPort: 15011, name: ENVOY_XDS_PORT_NAME },
            { containerPort: 15012, name: 'https-dns' },
            { containerPort: 15013, name: ZTUNNEL_XDS_PORT_NAME },
            { containerPort: READINESS_PORT, name: 'http-ready' },
          ],
          // The chart's probe (httpGet /ready on 8080), polled faster: 503 until the root
          // ConfigMaps are written (mesh/control-plane/readiness-server.ts).
          readinessProbe: {
            httpGet: { path: READINESS_PATH, port: READINESS_PORT },
            periodSeconds: 2,
            timeoutSeconds: 5,
          },
        },
      ],
    },
  });
  const istiodService = service({
    name: 'istiod',
    namespace: 'istio-system',
    labels,
    ports: [
      { name: 'grpc-xds', port: 15010, targetPort: 15010 },
      { name: ENVOY_XDS_PORT_NAME, port: 15011, targetPort: 15011 },
      { name: 'https-dns', port: 15012, targetPort: 15012 },
      { name: ZTUNNEL_XDS_PORT_NAME, port: 15013, targetPort: 15013 },
    ],
  });
  return [
    namespace,
    serviceAccount('istio-system', 'istiod'),
    serviceAccount('istio-system', 'ztunnel'),
    serviceAccount('istio-system', 'istio-ingressgateway'),
    serviceAccount('default', 'httpbin'),
    role,
    binding,
    istiod,
    istiodService,
    ...(inPod ? buildIstioCni({ zds: options.istioZtunnel === true }) : []),
  ];
}
