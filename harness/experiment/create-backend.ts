import type { ClusterBackend } from '../../clusters/backend.ts';
import { createKindBackend } from '../../clusters/kind/index.ts';
import { createLocalBackend } from '../../clusters/local/index.ts';
import type { LocalBackendOptions } from '../../clusters/local/index.ts';
import { istioZtunnelImage } from '../../clusters/local/istio-ztunnel-image.ts';
import { ISTIO_ZTUNNEL_IMAGE } from '../../clusters/manifests/index.ts';
import { badInput } from '../../lib/index.ts';
import { readTestRoot, realZtunnelFromEnv } from '../../clusters/local/upstream-ztunnel.ts';
import type { Clock } from '../../lib/index.ts';
import { PROJECT_ROOT } from '../paths.ts';
import type { ExperimentParams } from './experiment-params.ts';

export interface BackendSettings {
  /** kind: the host port the gateway's nodePort is mapped to (default 18080). */
  kindIngressPort?: number;
  /** kind: leave the cluster running after the run, for kubectl. */
  keepCluster?: boolean;
}

/**
 * The run's cluster, by --backend. Creating one starts nothing (describe() works before up()); the
 * local backend writes container output under `logDir`.
 */
export function createBackend(
  params: Pick<ExperimentParams, 'backend' | 'timing'> &
    Partial<Pick<ExperimentParams, 'ztunnelImpl' | 'podNetwork' | 'arms'>>,
  options: {
    clock: Clock;
    logDir?: string;
    settings?: BackendSettings;
    /** kind: the cluster's kubeconfig goes here (the run folder), never into ~/.kube/config. */
    kubeconfigPath?: string;
    write?: (text: string) => void;
    /** local: the Envoy binary the proxy pods run (ensureEnvoy's). */
    envoyBinary?: string;
  },
): ClusterBackend {
  const { clock, settings = {} } = options;
  if (params.backend === 'kind')
    return createKindBackend({
      clock,
      projectRoot: PROJECT_ROOT,
      ...(settings.kindIngressPort === undefined ? {} : { ingressHostPort: settings.kindIngressPort }),
      ...(settings.keepCluster ? { keepCluster: true } : {}),
      ...(options.kubeconfigPath ? { kubeconfigPath: options.kubeconfigPath } : {}),
      // Pod logs into the run folder (runDir/pods), a failed run's `kind export logs` beside them.
      ...(options.logDir ? { logDir: options.logDir } : {}),
      ...(options.write ? { onLogs: options.write } : {}),
      onKubeconfig: (path) =>
        options.write?.(
          `kind: the cluster's kubeconfig is ${path} (KUBECONFIG=${path} kubectl get pods -A)\n`,
        ),
    });
  return createLocalBackend({
    clock,
    timing: params.timing,
    ...(options.logDir ? { logDir: options.logDir } : {}),
    ...(options.envoyBinary ? { tools: { envoyBinary: options.envoyBinary } } : {}),
    ...(params.podNetwork === 'netns' ? podNetnsOptions(params.arms?.tcpMigrateReq) : {}),
    ...(params.ztunnelImpl === 'istio' ? istioZtunnelOptions() : {}),
    ...(params.arms && params.arms.cpuIsolation !== 'none' ? { cpuIsolation: params.arms.cpuIsolation } : {}),
  });
}

/**
 * --netns: pods in namespaces of their own. tcp_migrate_req is per namespace and a new one starts at
 * the kernel's default (0), so the arm's 1 is set in each pod's, where ztunnel's in-pod listeners
 * live (a cluster would set it through the pod's securityContext.sysctls).
 */
function podNetnsOptions(
  tcpMigrateReq: number | undefined,
): Pick<LocalBackendOptions, 'netns' | 'podSysctls'> {
  return {
    netns: true,
    // 0 is what a new namespace starts with: set only the arm's 1 (a process spawn per pod otherwise).
    ...(tcpMigrateReq === 1 ? { podSysctls: { 'net.ipv4.tcp_migrate_req': '1' } } : {}),
  };
}

/**
 * --ztunnel-impl istio: pods in namespaces of their own, istio/ztunnel's binary as an image, and the
 * mesh CA signing with its test root (the root a FAKE_CA ztunnel trusts). Refused (exit 2) when the
 * binary or its test root is not given.
 */
function istioZtunnelOptions(): Pick<LocalBackendOptions, 'netns' | 'caRoot' | 'images'> {
  const real = realZtunnelFromEnv(process.env);
  if (typeof real === 'string')
    throw badInput('--ztunnel-impl istio', "istio/ztunnel's binary and test root", real);
  return {
    netns: true,
    caRoot: readTestRoot(real),
    images: new Map([[ISTIO_ZTUNNEL_IMAGE, istioZtunnelImage(real.binary)]]),
  };
}
