import type { KubernetesObject, V1ClusterRole, V1ClusterRoleBinding } from '@kubernetes/client-node';
import { IMAGES } from './images.ts';
import { daemonSet } from './workload.ts';

/** The folder both DaemonSets mount from the node: the ZDS socket lives in it (the chart's). */
export const ZDS_SOCKET_DIR = '/var/run/ztunnel';
/** istio-cni's node agent, as Istio's chart names it. */
export const ISTIO_CNI_DAEMONSET = {
  kind: 'DaemonSet',
  namespace: 'istio-system',
  name: 'istio-cni-node',
} as const;
/** The node's network namespace pins (the container runtime's), which both DaemonSets mount. */
export const NETNS_PIN_DIR = '/var/run/netns';

/** The pins, mounted so that a namespace pinned after the pod started shows in it too. */
export const NETNS_PIN_VOLUME = {
  volume: { name: 'cni-netns-dir', hostPath: { path: NETNS_PIN_DIR, type: 'DirectoryOrCreate' } },
  mount: { name: 'cni-netns-dir', mountPath: NETNS_PIN_DIR, mountPropagation: 'HostToContainer' },
} as const;

/**
 * istio-cni's node agent as Istio's chart deploys it for ambient (manifests/charts/istio-cni): a
 * DaemonSet in istio-system, privileged, in the node's network and PID namespaces, the ZDS socket's
 * folder, the CNI folders and the network namespace pins from the host (the chart's volumes); with
 * read access to pods. Its image is ours (mesh/node-agent/main.ts): it chains its CNI plugin into the
 * node's CNI config, enrols the node's ambient pods and hands them to ztunnel. `zds`: the node's
 * ztunnel is istio/ztunnel's binary, spoken to in ZDS (mesh/zds) through the image's zds-relay.
 */
export function buildIstioCni(options: { zds?: boolean } = {}): KubernetesObject[] {
  const labels = { 'k8s-app': 'istio-cni-node' };
  const role: V1ClusterRole = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'istio-cni-ztunnel-harness' },
    rules: [
      // patch: the ambient.istio.io/redirection annotation on the pods it captures (the chart's too).
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'patch'] },
      // Its own DaemonSet, read at exit: gone or going means the plugin goes too (ShouldStopCleanup).
      { apiGroups: ['apps'], resources: ['daemonsets'], verbs: ['get'] },
    ],
  };
  const binding: V1ClusterRoleBinding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'istio-cni-ztunnel-harness' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata?.name ?? '' },
    subjects: [{ kind: 'ServiceAccount', name: 'istio-cni', namespace: 'istio-system' }],
  };
  const agent = daemonSet({
    name: ISTIO_CNI_DAEMONSET.name,
    namespace: ISTIO_CNI_DAEMONSET.namespace,
    labels,
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
    spec: {
      serviceAccountName: 'istio-cni',
      hostNetwork: true,
      hostPID: true,
      dnsPolicy: 'ClusterFirstWithHostNet',
      terminationGracePeriodSeconds: 5,
      containers: [
        {
          name: 'install-cni',
          image: IMAGES.cni,
          env: [
            { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
            { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
            // istio/ztunnel's binary as the node's ztunnel: istio-cni's own ZDS (each pod's
            // network namespace as a file descriptor), not our ztunnel's JSON-lines form.
            ...(options.zds ? [{ name: 'ZTUNNEL_PROTOCOL', value: 'zds' }] : []),
          ],
          securityContext: { privileged: true, runAsUser: 0, runAsGroup: 0 },
          volumeMounts: [
            { name: 'cni-ztunnel-sock-dir', mountPath: ZDS_SOCKET_DIR },
            { name: 'cni-socket-dir', mountPath: '/var/run/istio-cni' },
            { name: 'cni-bin-dir', mountPath: '/host/opt/cni/bin' },
            { name: 'cni-net-dir', mountPath: '/host/etc/cni/net.d' },
            NETNS_PIN_VOLUME.mount,
          ],
        },
      ],
      volumes: [
        { name: 'cni-ztunnel-sock-dir', hostPath: { path: ZDS_SOCKET_DIR, type: 'DirectoryOrCreate' } },
        { name: 'cni-socket-dir', hostPath: { path: '/var/run/istio-cni', type: 'DirectoryOrCreate' } },
        { name: 'cni-bin-dir', hostPath: { path: '/opt/cni/bin' } },
        { name: 'cni-net-dir', hostPath: { path: '/etc/cni/net.d' } },
        NETNS_PIN_VOLUME.volume,
      ],
    },
  });
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'istio-cni', namespace: 'istio-system' } },
    role,
    binding,
    agent,
  ];
}
