import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { ErrorCode, HarnessError, isHarnessError } from '../../lib/index.ts';
import { containerRestarts } from './pod-events.ts';

export interface RestartPolicyOptions {
  /** Tells a restart as a lifecycle event (`container-exited`, detail: which, how it last exited). */
  emit: (pod: string, detail: string, node?: string) => void;
  /** Fails the run (the backend's onFailure). */
  fail: (err: HarnessError) => void;
  /** Where the instance before a restart is saved (`<ns>_<pod>_<container>.previous.log`). */
  logDir: string;
}

export interface RestartPolicy {
  /** A pod's watch update (`pod` is `namespace/name`). */
  onPodUpdate(pod: string, before: V1Pod | undefined, after: V1Pod | undefined): void;
  /** The cluster is Ready (waitForReady resolved): from now on a restart fails the run. */
  markReady(): void;
  /** The restarts seen before Ready, one line each: `ns/pod container restarted (...)`. */
  startupRestarts(): readonly string[];
  /** A ComponentFailed error (a timeout) with the restarts before Ready added; others unchanged. */
  explain(err: unknown): unknown;
}

/**
 * Container restarts on kind. Before the cluster is Ready they are tolerated, as Kubernetes tolerates
 * them: a proxy that started before istiod served, a worker whose kube-proxy had not yet programmed
 * the istiod VIP, CoreDNS not yet answering (kind's --wait covers the control-plane node only). Each is
 * an event and a line in startupRestarts(); one that never settles shows as waitForReady's timeout,
 * which says which containers restarted and how they last exited. During the run a restart fails it.
 */
export function createRestartPolicy(options: RestartPolicyOptions): RestartPolicy {
  let isReady = false;
  const before: string[] = [];
  return {
    onPodUpdate(pod, was, now) {
      for (const r of containerRestarts(was, now)) {
        const what = `${r.container} restarted (restartCount ${String(r.restartCount)}; ${r.lastExit})`;
        options.emit(pod, `${what}${isReady ? '' : ', before Ready'}`, now?.spec?.nodeName);
        if (!isReady) {
          before.push(`${pod} ${what}`);
          continue;
        }
        const previous = join(options.logDir, `${pod.replace('/', '_')}_${r.container}.previous.log`);
        options.fail(
          new HarnessError(
            ErrorCode.ComponentFailed,
            `${pod} ${what} during the run; its log before the restart is saved as ${previous} before the cluster is deleted`,
          ),
        );
      }
    },
    markReady() {
      isReady = true;
    },
    startupRestarts: () => before,
    explain(err) {
      if (before.length === 0 || !isHarnessError(err, ErrorCode.ComponentFailed)) return err;
      return new HarnessError(
        ErrorCode.ComponentFailed,
        `${err.message}; containers restarted meanwhile: ${before.join('; ')}`,
        { cause: err },
      );
    },
  };
}
