// istio/ztunnel's binary as a local image (ISTIO_ZTUNNEL_IMAGE): a pod's own ztunnel in dedicated
// mode, in the pod's network namespace. What a cluster would give it through xDS, the pod's static
// workload config, comes from the pod record here.
import { localXdsConfig } from './upstream-ztunnel.ts';
import type { LocalImage } from './images.ts';

export function istioZtunnelImage(binary: string): LocalImage {
  return {
    entrypoint: '',
    binary,
    // Its readiness log line (src/readiness.rs): every start-up task done.
    startedPattern: /marking server ready/,
    // At the deadline, only when connections were left (src/drain.rs run_with_drain).
    logEvents: [{ pattern: /drain duration expired with pending connections/, kind: 'drain-deadline' }],
    podEnv: (pod) => ({
      PROXY_WORKLOAD_INFO: `${pod.namespace}/${pod.name}/${pod.serviceAccount}`,
      LOCAL_XDS: localXdsConfig({
        name: pod.name,
        ip: pod.podIp,
        namespace: pod.namespace,
        serviceAccount: pod.serviceAccount,
      }),
    }),
  };
}
