import type { V1Namespace, V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { DATAPLANE_MODE_LABEL, imageFrom, IMAGES } from './images.ts';

/** The load generator's namespace on kind: never labelled for ambient, so no pod of it is meshed. */
export const LOAD_NAMESPACE = 'load';
/**
 * Marks a pod of ours outside the mesh (the load, a client, a probe): never part of the workload
 * under test, so no lifecycle event and no readiness of the run's (clusters/kind/run-scope.ts).
 */
export const LOAD_POD_LABEL = 'ztunnel-harness/load';

/** Where fortio writes its access log and JSON result inside the pod. */
export const FORTIO_POD_OUT_DIR = '/out';
/** The node's folder the pod's /out is (a hostPath): the files outlive the pod, read from the node. */
export const FORTIO_NODE_DIR = '/var/lib/ztunnel-harness/fortio';
/**
 * fortio's stdout and stderr, into a file in the out folder: whole (the kubelet rotates a container's
 * log past 10 MiB, and fortio's log indexes its failed calls: fortio-log.ts).
 */
export const FORTIO_POD_OUTPUT = 'output.log';

/**
 * Where a pod of ours outside the mesh goes and what it runs from: kind's load namespace and the
 * images loaded into its nodes (never pulled), or, on an existing cluster, the run's own namespace,
 * its owner labels, and images pulled from where the user put them (clusters/cluster/).
 */
export interface LoadPodPlacement {
  namespace: string;
  labels?: Readonly<Record<string, string>>;
  /** Where our images are pulled from (imageFrom); absent: the nodes have them (kind's, loaded). */
  imageRegistry?: string;
  imagePullPolicy: 'Never' | 'IfNotPresent';
  /**
   * How fortio's files come back: `node`, a hostPath on its node read from this machine (kind's
   * nodes are containers here: the live counts too), or `api`, read through the API server's exec
   * while the container waits after fortio's end (any cluster). Default node.
   */
  filesVia?: 'node' | 'api';
}

/** What the pod's stdout says when fortio has ended (filesVia api): `fortio-exit <code>`. */
export const FORTIO_EXIT_MARKER = 'fortio-exit';

/** How long the container waits after fortio's end for its files to be read (filesVia api). */
export const FORTIO_FILES_WAIT_S = 600;

/**
 * filesVia api: fortio in the background, SIGTERM forwarded to it (the shell is the pod's first
 * process, which ignores signals it has no trap for), its exit code said once it has really ended,
 * then the container waits for its files to be read.
 */
const API_SCRIPT = [
  `/usr/bin/fortio "$@" >${FORTIO_POD_OUT_DIR}/${FORTIO_POD_OUTPUT} 2>&1 &`,
  'pid=$!',
  "trap 'kill -TERM $pid' TERM INT",
  'wait $pid; code=$?',
  'while kill -0 $pid 2>/dev/null; do wait $pid; code=$?; done',
  `echo "${FORTIO_EXIT_MARKER} $code"`,
  `exec sleep ${String(FORTIO_FILES_WAIT_S)}`,
].join('\n');

/** kind: the load namespace, our images loaded into the nodes. */
export const KIND_LOAD_PLACEMENT: LoadPodPlacement = { namespace: LOAD_NAMESPACE, imagePullPolicy: 'Never' };

export interface FortioPodOptions {
  /** The pod's name (one per fortio run). */
  name: string;
  /** fortio's arguments (`load ...`), its files under FORTIO_POD_OUT_DIR. */
  args: readonly string[];
  /** Default: kind's (KIND_LOAD_PLACEMENT). */
  placement?: LoadPodPlacement;
}

/** The namespace, labelled for nothing: Istio enrols a namespace only with istio.io/dataplane-mode. */
export function buildLoadNamespace(): V1Namespace {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name: LOAD_NAMESPACE } };
}

/**
 * fortio as a pod outside the mesh, as ASM's client ran (inside the cluster, calling the gateway's
 * ClusterIP): `istio.io/dataplane-mode: none` keeps the pod out even of an ambient namespace (Istio's
 * pod-level opt-out). It runs once (restartPolicy Never: a failed load is not retried), its image
 * loaded into the nodes (never pulled), its files on the node under FORTIO_NODE_DIR/<name>.
 */
export function buildFortioPod(options: FortioPodOptions): V1Pod {
  const placement = options.placement ?? KIND_LOAD_PLACEMENT;
  const viaApi = placement.filesVia === 'api';
  const script = viaApi
    ? API_SCRIPT
    : `exec /usr/bin/fortio "$@" >${FORTIO_POD_OUT_DIR}/${FORTIO_POD_OUTPUT} 2>&1`;
  return outOfMeshPod(
    options.name,
    'fortio',
    {
      terminationGracePeriodSeconds: 5,
      containers: [
        {
          name: 'fortio',
          image: imageFrom(IMAGES.fortio, placement.imageRegistry),
          imagePullPolicy: placement.imagePullPolicy,
          command: ['sh', '-c', script, 'fortio'],
          args: [...options.args],
          volumeMounts: [{ name: 'out', mountPath: FORTIO_POD_OUT_DIR }],
        },
      ],
      volumes: [
        viaApi
          ? { name: 'out', emptyDir: {} }
          : {
              name: 'out',
              hostPath: { path: `${FORTIO_NODE_DIR}/${options.name}`, type: 'DirectoryOrCreate' },
            },
      ],
    },
    placement,
  );
}

/**
 * A pod of ours in the load namespace, outside the mesh (`istio.io/dataplane-mode: none`), run once
 * (restartPolicy Never): fortio's, and the client pods (client-pod.ts).
 */
export function outOfMeshPod(
  name: string,
  app: string,
  spec: Omit<V1PodSpec, 'restartPolicy'>,
  placement: LoadPodPlacement = KIND_LOAD_PLACEMENT,
): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: placement.namespace,
      labels: { ...placement.labels, app, [DATAPLANE_MODE_LABEL]: 'none', [LOAD_POD_LABEL]: 'true' },
    },
    spec: { restartPolicy: 'Never', ...spec },
  };
}
