import { availableParallelism } from 'node:os';
import type { V1Container } from '@kubernetes/client-node';
import type { PodRecord } from './cluster-state.ts';

export interface EnvContext {
  /** Each of the pod's volumes' directory by volume name (pod-volumes.ts). */
  volumeDirs: ReadonlyMap<string, string>;
  /** Cluster DNS for `<name>.<namespace>.svc`: a Service's VIP, or istiod's address. */
  resolveService(name: string, namespace: string): string | undefined;
}

const SERVICE_HOST = /\b([a-z0-9-]+)\.([a-z0-9-]+)\.svc(?:\.cluster\.local)?\b/g;

function fieldRef(pod: PodRecord, fieldPath: string): string {
  const fields: Record<string, string> = {
    'metadata.name': pod.name,
    'metadata.namespace': pod.namespace,
    'metadata.uid': pod.uid,
    'spec.nodeName': pod.nodeName,
    'spec.serviceAccountName': pod.serviceAccount,
    'status.podIP': pod.podIp,
    'status.hostIP': pod.hostIp,
  };
  return fields[fieldPath] ?? '';
}

/**
 * The Downward API's `resourceFieldRef: limits.cpu` with divisor 1: the limit in whole cores, rounded
 * up ("2000m" -> "2", "1500m" -> "2"); without a limit Kubernetes gives the node's allocatable CPU,
 * which on the local backend is this machine's core count.
 */
function cpuLimitCores(container: V1Container): string {
  const raw = container.resources?.limits?.['cpu'];
  const cores =
    raw === undefined
      ? availableParallelism()
      : raw.endsWith('m')
        ? Number(raw.slice(0, -1)) / 1000
        : Number(raw);
  return String(Math.ceil(cores));
}

/**
 * A container's environment as the kubelet would give it, mapped onto loopback: fieldRefs resolved,
 * `*.svc` names resolved (there is no cluster DNS), a path under one of the container's volume
 * mounts mapped to that volume's directory, and LOCAL_BIND_ADDRESS telling the app where its
 * "0.0.0.0" is.
 */
export function buildContainerEnv(
  pod: PodRecord,
  container: V1Container,
  context: EnvContext,
): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: process.env['HOME'] ?? '/tmp',
    HOSTNAME: pod.name,
    LOCAL_BIND_ADDRESS: pod.appIp,
  };
  const mounts = (container.volumeMounts ?? []).flatMap((m) => {
    const dir = context.volumeDirs.get(m.name);
    return dir === undefined ? [] : [{ from: m.mountPath.replace(/\/$/, ''), to: dir }];
  });
  const mapPath = (value: string): string => {
    const mount = mounts.find((m) => value === m.from || value.startsWith(`${m.from}/`));
    return mount ? mount.to + value.slice(mount.from.length) : value;
  };
  for (const entry of container.env ?? []) {
    const raw = entry.valueFrom?.fieldRef
      ? fieldRef(pod, entry.valueFrom.fieldRef.fieldPath)
      : entry.valueFrom?.resourceFieldRef
        ? cpuLimitCores(container)
        : (entry.value ?? '');
    env[entry.name] = mapPath(raw).replace(
      SERVICE_HOST,
      (host, name: string, namespace: string) => context.resolveService(name, namespace) ?? host,
    );
  }
  return env;
}
