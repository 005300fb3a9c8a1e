import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { ZtunnelMode } from '../ztunnel-impl.ts';
import { tmpdir } from 'node:os';
import { createSystemClock } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import type { KindTools } from './kind-tools.ts';
import type { KindProvisioned, NodeImageChoice } from './provision/kind-provisioner.ts';
import type { StepRunner, StepTiming } from '../steps/step-runner.ts';

/** The grace period close() gives our pods (`kubectl delete --grace-period=2`), as the local backend. */
export const CLOSE_GRACE_S = 2;

/** The host port kind maps the gateway's nodePort to unless told another. */
export const DEFAULT_INGRESS_HOST_PORT = 18080;
/** istiod's PILOT_DEBOUNCE_AFTER default (pilot/pkg/features/tuning.go: DebounceAfter, 100ms). */
export const DEFAULT_DEBOUNCE_AFTER_MS = 100;

export interface KindBackendOptions {
  clock?: Clock;
  /** kind cluster name (default ztunnel-harness). */
  name?: string;
  workers?: number;
  /** 127.0.0.1:<port> reaches the gateway's nodePort (default DEFAULT_INGRESS_HOST_PORT). */
  ingressHostPort?: number;
  /** Leave the cluster running on close (for a second look with kubectl). */
  keepCluster?: boolean;
  /**
   * Where kind writes the cluster's kubeconfig (`kind create cluster --kubeconfig`), so the user's
   * ~/.kube/config and current context stay untouched. Default: a private folder of its own (0700)
   * in the temp dir, never the run folder (which gets shared): removed with the cluster.
   */
  kubeconfigPath?: string;
  /** Told once the cluster exists: how to reach it with kubectl. */
  onKubeconfig?: (path: string) => void;
  /** The repository root: Dockerfile and build context. */
  projectRoot: string;
  /**
   * Injected in tests; by default kind and docker from PATH, their long steps (docker build, kind
   * create, kind load) cancelled when up()'s signal aborts (SIGINT or SIGTERM to the harness).
   */
  tools?: KindTools;
  /** The default tools' environment (tests put fake kind and docker first on PATH). */
  toolsEnv?: Record<string, string>;
  /**
   * Where pod logs are saved, named as the local backend names them (`<ns>_<pod>_<container>.log`,
   * `.previous.log` for a container's instance before a restart): the run folder's pods/ in an
   * experiment. Default `<tmpdir>/<name>-logs/pods`.
   */
  logDir?: string;
  /** Where a failed run's `kind export logs` goes (default: kind-logs beside logDir). */
  kindLogsDir?: string;
  /** Told where a failed run's logs were saved before the cluster went, and what could not be saved. */
  onLogs?: (message: string) => void;
  /** kind's --wait for the control plane, in seconds. */
  waitS?: number;
  /** How long istiod may take to roll out after the cluster is up (default 180 s). */
  controlPlaneTimeoutMs?: number;
  /** How long close() waits for our pods to be gone before deleting the cluster (default 20 s). */
  closeWaitMs?: number;
  /** `--load-from`: fortio as a pod calling the gateway's ClusterIP, or on the host (default). */
  loadFrom?: 'cluster' | 'host';
  /**
   * `--ztunnel-mode`: in-pod (default: istio-cni's node agent applied with istiod, HBONE to the
   * pods' own addresses) or node-address (no node agent, HBONE to each pod's node).
   */
  ztunnelMode?: ZtunnelMode;
  /**
   * `--ztunnel-impl istio-shared`: istio/ztunnel's own binary (ZTUNNEL_BINARY, the user's) as the
   * ztunnel DaemonSet, packaged into an image at run time (provision/istio-ztunnel-image.ts); istio-cni
   * then speaks ZDS to it. In-pod mode only.
   */
  istioZtunnelBinary?: string;
  /**
   * istiod's push debounce, PILOT_DEBOUNCE_AFTER in ms (the debounce arm, `--timing
   * debounceQuietMs=`; default 100, istiod's own), ours or Istio's istiod.
   */
  debounceAfterMs?: number;
  /** `--node-image`: auto (ours from the registries unless the official one runs here) or a reference. */
  nodeImage?: NodeImageChoice;
  /**
   * engine -> kind -> images, each a step (default provisionKind: the Docker engine that answers or
   * ours started, kind pinned, the node image and our images built from the package registries, or
   * found built). Tests inject a fake that builds through the fake docker.
   */
  provision?: (runner: StepRunner) => Promise<KindProvisioned>;
  /** Where each step's log goes (default: steps/ beside logDir). */
  stepLogDir?: string;
  /** Told each step's time as it ends (the run folder's steps.csv). */
  onStep?: (timing: StepTiming) => void;
  /** Each step's start and end, with its log ("kind: images: done in 12.3 s"). */
  onProgress?: (text: string) => void;
}

/** The options with every default filled in: what the backend's parts read. */
export type KindSettings = KindBackendOptions & {
  /** The kubeconfig's folder is the run's own (privateKubeconfigPath): made 0700, removed with the cluster. */
  ownsKubeconfigDir: boolean;
} & Required<
    Pick<
      KindBackendOptions,
      | 'clock'
      | 'name'
      | 'workers'
      | 'ingressHostPort'
      | 'kubeconfigPath'
      | 'logDir'
      | 'kindLogsDir'
      | 'stepLogDir'
      | 'waitS'
      | 'controlPlaneTimeoutMs'
      | 'closeWaitMs'
      | 'nodeImage'
      | 'ztunnelMode'
      | 'debounceAfterMs'
    >
  >;

/**
 * The default kubeconfig's path: a folder named at random in the temp dir, made 0700 when the
 * cluster is created (create-cluster.ts), so no other user reads the cluster's admin credentials and
 * no one can plant the file ahead of the run, as a fixed `/tmp/<name>.kubeconfig` would let them.
 */
export const privateKubeconfigPath = (): string =>
  join(tmpdir(), `ztunnel-harness-kube-${randomBytes(8).toString('hex')}`, 'kubeconfig');

export function normalizeKindOptions(options: KindBackendOptions): KindSettings {
  const name = options.name ?? 'ztunnel-harness';
  const logDir = options.logDir ?? join(tmpdir(), `${name}-logs`, 'pods');
  return {
    ...options,
    clock: options.clock ?? createSystemClock(),
    name,
    workers: options.workers ?? 2,
    ingressHostPort: options.ingressHostPort ?? DEFAULT_INGRESS_HOST_PORT,
    kubeconfigPath: options.kubeconfigPath ?? privateKubeconfigPath(),
    ownsKubeconfigDir: options.kubeconfigPath === undefined,
    logDir,
    kindLogsDir: options.kindLogsDir ?? join(dirname(logDir), 'kind-logs'),
    stepLogDir: options.stepLogDir ?? join(dirname(logDir), 'steps'),
    waitS: options.waitS ?? 300,
    controlPlaneTimeoutMs: options.controlPlaneTimeoutMs ?? 180_000,
    closeWaitMs: options.closeWaitMs ?? 20_000,
    nodeImage: options.nodeImage ?? 'auto',
    ztunnelMode: options.ztunnelMode ?? 'in-pod',
    debounceAfterMs: options.debounceAfterMs ?? DEFAULT_DEBOUNCE_AFTER_MS,
  };
}
