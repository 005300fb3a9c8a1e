import { createSystemClock } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import type { WorkloadRef } from '../backend.ts';
import type { StepTiming } from '../steps/step-runner.ts';
import { runHost, runNamespaceName } from './run-objects.ts';
import { assertRunNamespaceName } from './run-ownership.ts';

export interface ExistingBackendOptions {
  clock?: Clock;
  /** Default: $KUBECONFIG or ~/.kube/config, as kubectl reads it. */
  kubeconfig?: string;
  /** Default: the kubeconfig's current context. */
  context?: string;
  /** Where Istio's control plane and ztunnel are (default istio-system). */
  istioNamespace?: string;
  /** The ingress gateway Service the load goes through (default istio-system/istio-ingressgateway). */
  gateway?: { namespace: string; name: string };
  /** E1 restarts the cluster's ztunnel DaemonSet: only when the user says so. */
  allowZtunnelRestart?: boolean;
  /**
   * istio-cni's DaemonSet may be restarted or deleted by the fault: only on a cluster the harness made
   * (kind with --control-plane istio), never on a user's.
   */
  allowIstioCniFaults?: boolean;
  /** Istio's namespaces' pods' logs kept whole (default: only the lines that concern the run). */
  allIstioLogs?: boolean;
  /** Where the cluster pulls our images from (`<registry>/<name>:<tag>`); default: the nodes have them. */
  imageRegistry?: string;
  /** What the run's fault restarts (a ztunnel restart is refused before anything without consent). */
  faultTarget?: WorkloadRef;
  /** The run's namespace (default: `ztunnel-harness-<time>-<random>`; a given one must have the prefix). */
  runNamespace?: string;
  /** The Host the run's route answers (default: random, run-objects.ts runHost). */
  routeHost?: string;
  /** Where pod logs go (the run folder's pods/). */
  logDir: string;
  stepLogDir: string;
  /** How long close() waits for the run's namespace to be gone (default 120 s). */
  closeWaitMs?: number;
  onProgress?: (text: string) => void;
  onLogs?: (text: string) => void;
  onStep?: (timing: StepTiming) => void;
}

export type ExistingSettings = ExistingBackendOptions &
  Required<
    Pick<
      ExistingBackendOptions,
      | 'clock'
      | 'istioNamespace'
      | 'gateway'
      | 'allowZtunnelRestart'
      | 'allIstioLogs'
      | 'runNamespace'
      | 'routeHost'
      | 'closeWaitMs'
    >
  >;

export const DEFAULT_GATEWAY = { namespace: 'istio-system', name: 'istio-ingressgateway' };

export function normalizeExistingOptions(options: ExistingBackendOptions): ExistingSettings {
  const clock = options.clock ?? createSystemClock();
  if (options.runNamespace !== undefined) assertRunNamespaceName(options.runNamespace);
  return {
    ...options,
    clock,
    istioNamespace: options.istioNamespace ?? 'istio-system',
    gateway: options.gateway ?? DEFAULT_GATEWAY,
    allowZtunnelRestart: options.allowZtunnelRestart ?? false,
    allIstioLogs: options.allIstioLogs ?? false,
    runNamespace: options.runNamespace ?? runNamespaceName(clock.now() + clock.wallOffsetMs),
    routeHost: options.routeHost ?? runHost(),
    closeWaitMs: options.closeWaitMs ?? 120_000,
  };
}

/** Whether the run's fault restarts ztunnel's DaemonSet in Istio's namespace. */
export const restartsZtunnel = (s: ExistingSettings): boolean =>
  s.faultTarget?.kind === 'DaemonSet' && s.faultTarget.name === 'ztunnel';
