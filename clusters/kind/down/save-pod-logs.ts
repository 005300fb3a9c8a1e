import type { V1Pod } from '@kubernetes/client-node';
import { waitAtMost } from '../../../lib/index.ts';
import { POD_LOGS_DEADLINE_MS } from '../kind-evidence.ts';
import type { KindRun } from '../kind-run.ts';
import type { PodLogRef } from '../kube-api.ts';

/**
 * Every container's log into logDir before the pods go (logs() reads them), cut short by destroy()
 * (the run's draining signal) or after POD_LOGS_DEADLINE_MS.
 */
export async function savePodLogs(
  run: KindRun,
  pods: V1Pod[],
  readLog: (log: PodLogRef) => Promise<string>,
): Promise<void> {
  const { clock, logDir, onLogs } = run.settings;
  const cut = new Promise<void>((resolve) => {
    run.draining.signal.addEventListener('abort', () => {
      resolve();
    });
  });
  // A log that cannot be read (a container that never started), or a folder that cannot be
  // written, is told and does not hold the teardown up.
  const followed = run.logFollowers;
  const saving = run.podLogs
    .save({
      pods,
      dir: logDir,
      readLog,
      ...(followed ? { kept: (file: string) => followed.followed(file) } : {}),
    })
    .then(
      (saved) => {
        if (saved.failures.length > 0)
          onLogs?.(`kind: pod logs saved in ${logDir}; not read: ${saved.failures.join('; ')}\n`);
      },
      (err: unknown) => {
        onLogs?.(`kind: pod logs not saved in ${logDir}: ${(err as Error).message}\n`);
      },
    );
  const saved = await waitAtMost(clock, Promise.race([saving, cut]), POD_LOGS_DEADLINE_MS);
  if (!saved.done) onLogs?.(`kind: pod logs not all read within ${String(POD_LOGS_DEADLINE_MS / 1000)} s\n`);
}
