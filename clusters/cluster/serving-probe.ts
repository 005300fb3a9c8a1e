// Whether requests get through the cluster's gateway to the run's httpbin, asked from inside the
// cluster (its ClusterIP is not reachable from here): `fortio curl` in a pod outside the mesh, which
// exits 0 only on a 200 (fortio's curl mode), tried until one does or the deadline passes. The
// route (Gateway + VirtualService) reaches the gateway through its control plane's push, after the
// workload is Ready: the first tries may get 404.
import { CoreV1Api } from '@kubernetes/client-node';
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { ErrorCode, HarnessError } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import { outOfMeshPod } from '../manifests/fortio-pod.ts';
import type { LoadPodPlacement } from '../manifests/index.ts';
import { imageFrom, IMAGES } from '../manifests/images.ts';
import type { KubeApi } from '../kind/kube-api.ts';

const POLL_MS = 500;
const RETRY_MS = 1000;

export interface ServingProbe {
  kc: KubeConfig;
  api: KubeApi;
  clock: Clock;
  placement: LoadPodPlacement;
  /** `http://<gateway ClusterIP>/get` */
  url: string;
  host: string;
  deadlineMs: number;
  signal?: AbortSignal | undefined;
  say: (line: string) => void;
}

function probePod(probe: ServingProbe, name: string): V1Pod {
  const { placement } = probe;
  return outOfMeshPod(
    name,
    'serving-probe',
    {
      terminationGracePeriodSeconds: 0,
      containers: [
        {
          name: 'fortio',
          image: imageFrom(IMAGES.fortio, placement.imageRegistry),
          imagePullPolicy: placement.imagePullPolicy,
          command: ['/usr/bin/fortio', 'curl', '-H', `Host: ${probe.host}`, probe.url],
        },
      ],
    },
    placement,
  );
}

/** The pod's exit code once its container ended (a pod that cannot start: undefined until the deadline). */
async function exitCode(probe: ServingProbe, core: CoreV1Api, name: string): Promise<number | undefined> {
  const { namespace } = probe.placement;
  for (;;) {
    probe.signal?.throwIfAborted();
    const pod = await core.readNamespacedPod({ name, namespace });
    const ended = pod.status?.containerStatuses?.[0]?.state?.terminated;
    if (ended) return ended.exitCode;
    if (probe.clock.now() >= probe.deadlineMs) return undefined;
    await probe.clock.sleep(POLL_MS, probe.signal);
  }
}

/** Until one probe pod gets a 200 through the gateway; a timeout says what the last one got. */
export async function awaitServingInCluster(probe: ServingProbe): Promise<void> {
  const core = probe.kc.makeApiClient(CoreV1Api);
  const { namespace } = probe.placement;
  for (let n = 1; ; n += 1) {
    const name = `serving-probe-${String(n)}`;
    await probe.api.apply(probePod(probe, name));
    const code = await exitCode(probe, core, name);
    const log =
      code === undefined
        ? ''
        : await probe.api.podLog({ namespace, pod: name, container: 'fortio' }).catch(() => '');
    await probe.api.deletePod(namespace, name, 0).catch(() => undefined); // the namespace goes at the end anyway
    if (code === 0) {
      probe.say(`serving: ${probe.url} (Host ${probe.host}) answered 200 from pod ${String(n)}`);
      return;
    }
    if (probe.clock.now() >= probe.deadlineMs)
      throw new HarnessError(
        ErrorCode.ComponentFailed,
        `no 200 from ${probe.url} with Host ${probe.host} through the gateway within the deadline (${String(n)} tries from pods in ${namespace}); the last: ${code === undefined ? 'the pod did not end' : `fortio curl exited ${String(code)}: ${lastLine(log)}`}`,
      );
    await probe.clock.sleep(RETRY_MS, probe.signal);
  }
}

const lastLine = (log: string): string =>
  log
    .trim()
    .split('\n')
    .filter((l) => l.trim())
    .slice(-2)
    .join(' | ')
    .slice(0, 300);
