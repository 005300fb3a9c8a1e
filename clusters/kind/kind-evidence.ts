import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { makeDirectory, waitAtMost } from '../../lib/index.ts';
import type { Clock } from '../../lib/index.ts';
import type { KindTools } from './kind-tools.ts';
import type { PodLogRef } from './kube-api.ts';
import { isTroubled } from './pod-logs.ts';
import type { PodLogStore } from './pod-logs.ts';

/** The pods' part (API calls to a cluster that may be failing) gets this long; the export has its own bound. */
export const POD_LOGS_DEADLINE_MS = 30_000;

export interface FailureEvidenceOptions {
  clock: Clock;
  tools: Pick<KindTools, 'exportLogs'>;
  name: string;
  /** `kind export logs` writes here (the run folder's kind-logs/). */
  kindLogsDir: string;
  /** Pod logs and the pods' status go here (the run folder's pods/, as the local backend's). */
  logDir: string;
  /** Our pods (default and istio-system) as the watch last saw them; undefined before it started. */
  pods: readonly V1Pod[] | undefined;
  readLog: ((log: PodLogRef) => Promise<string>) | undefined;
  store: PodLogStore;
}

/** File in logDir with the status of every pod of ours: phase, conditions (Unschedulable and why), containers. */
export const POD_STATUS_FILE = 'kind-pod-status.json';

/**
 * What a failed run keeps before its cluster is deleted: `kind export logs` (every node's journal,
 * kubelet and container logs: kind's own troubleshooting path), each restarted or non-Ready pod's
 * container logs with the instance before the restart (`kubectl logs --previous`), and the status of
 * every pod of ours. Each part is attempted whatever the others do; returns one line per part that
 * could not be saved, to be told with the failure (the run's failure stays the one reported).
 */
export async function saveFailureEvidence(options: FailureEvidenceOptions): Promise<string[]> {
  const problems: string[] = [];
  const exported = options.tools.exportLogs(options.name, options.kindLogsDir).catch((err: unknown) => {
    problems.push(`kind export logs: ${(err as Error).message}`);
  });
  const pods = options.pods ?? [];
  const podParts = async (): Promise<void> => {
    if (!options.readLog) return;
    await makeDirectory(options.logDir);
    await writeFile(
      join(options.logDir, POD_STATUS_FILE),
      `${JSON.stringify(pods.map(statusOf), null, 2)}\n`,
    );
    const saved = await options.store.save({
      pods: pods.filter(isTroubled),
      dir: options.logDir,
      readLog: options.readLog,
    });
    problems.push(...saved.failures.map((f) => `pod log ${f}`));
  };
  const podLogs = waitAtMost(options.clock, podParts(), POD_LOGS_DEADLINE_MS).then(
    (result) => {
      if (!result.done)
        problems.push(
          `pod logs: the API server did not answer within ${String(POD_LOGS_DEADLINE_MS / 1000)} s`,
        );
    },
    (err: unknown) => {
      problems.push(`pod logs: ${(err as Error).message}`);
    },
  );
  await Promise.all([exported, podLogs]);
  return problems;
}

function statusOf(pod: V1Pod) {
  return {
    pod: `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`,
    node: pod.spec?.nodeName ?? '',
    phase: pod.status?.phase ?? '',
    conditions: pod.status?.conditions ?? [],
    containers: pod.status?.containerStatuses ?? [],
  };
}
