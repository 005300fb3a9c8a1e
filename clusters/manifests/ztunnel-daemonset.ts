import type { V1DaemonSet } from '@kubernetes/client-node';
import { IMAGES } from './images.ts';

export interface ZtunnelManifestOptions {
  /** terminationGracePeriodSeconds and TERMINATION_GRACE_PERIOD_SECONDS together, as the chart sets them. */
  graceS: number;
  /** none (upstream) | goaway-on-unhealthy | evict-on-removal (seed 003's options). */
  drainStrategy?: string;
}

/**
 * ztunnel as Istio's chart deploys it (manifests/charts/ztunnel): a DaemonSet in istio-system with
 * maxSurge 1 / maxUnavailable 0, the grace period mirrored into TERMINATION_GRACE_PERIOD_SECONDS, a
 * readiness probe on :15021 /healthz/ready, and the ZDS socket directory from the host.
 */
export function buildZtunnelDaemonSet(options: ZtunnelManifestOptions): V1DaemonSet {
  const labels = { app: 'ztunnel' };
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'ztunnel', namespace: 'istio-system', labels },
    spec: {
      selector: { matchLabels: labels },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: 'ztunnel',
          terminationGracePeriodSeconds: options.graceS,
          volumes: [
            {
              name: 'cni-ztunnel-sock-dir',
              hostPath: { path: '/var/run/ztunnel', type: 'DirectoryOrCreate' },
            },
          ],
          containers: [
            {
              name: 'istio-proxy',
              image: IMAGES.ztunnel,
              env: [
                { name: 'CA_ADDRESS', value: 'http://istiod.istio-system.svc:15012' },
                { name: 'XDS_ADDRESS', value: 'istiod.istio-system.svc:15010' },
                { name: 'ZDS_ADDRESS', value: '/var/run/ztunnel/ztunnel.sock' },
                { name: 'TERMINATION_GRACE_PERIOD_SECONDS', value: String(options.graceS) },
                { name: 'DRAIN_STRATEGY', value: options.drainStrategy ?? 'none' },
                { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
                { name: 'NODE_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
                { name: 'INSTANCE_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
                { name: 'INSTANCE', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              ],
              ports: [{ containerPort: 15020, name: 'ztunnel-stats', protocol: 'TCP' }],
              readinessProbe: {
                httpGet: { port: 15021, path: '/healthz/ready' },
                periodSeconds: 10,
                timeoutSeconds: 1,
                failureThreshold: 3,
                successThreshold: 1,
              },
              volumeMounts: [{ mountPath: '/var/run/ztunnel', name: 'cni-ztunnel-sock-dir' }],
            },
          ],
        },
      },
    },
  };
}
