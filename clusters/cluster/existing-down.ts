// close() and destroy() on an existing cluster: the logs of every pod the run watched saved into the
// run folder (ztunnel's, the gateway's, httpbin's), then the run's namespace deleted, which takes
// everything the run created with it, and waited for until it is gone; the cluster itself and
// Istio's components are left as they were.
import { savePodLogs } from '../kind/down/save-pod-logs.ts';
import { ours } from '../kind/kind-workloads.ts';
import type { ExistingRun } from './existing-up.ts';
import { deleteOwnedNamespace } from './owned-namespaces.ts';

/** How long a destroyed run (Ctrl-C, a failure) waits for its namespace to be gone. */
const DESTROY_WAIT_MS = 60_000;

export async function closeExisting(x: ExistingRun, options: { saveLogs: boolean }): Promise<void> {
  const { run, settings } = x;
  await run.logFollowers?.close();
  const { api, watch } = run;
  if (options.saveLogs && api && watch) {
    // Only the pods the run's log scope keeps, and of Istio's only the lines that concern the run.
    const scope = run.scope.logs;
    const pods = ours(run, watch.list('pods')).filter((p) => scope?.of(p) !== 'none');
    const byName = new Map(pods.map((p) => [`${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`, p]));
    await savePodLogs(run, pods, async (log) => {
      const text = await api.podLog({ ...log, ...(run.logsSince ? { sinceTime: run.logsSince } : {}) });
      const pod = byName.get(`${log.namespace}/${log.pod}`);
      if (!scope || !pod || scope.of(pod) !== 'lines') return text;
      return text
        .split('\n')
        .filter((line, i, all) => (i === all.length - 1 && line === '') || scope.keeps(line))
        .join('\n');
    });
  }
  await x.lease?.stop();
  x.lease = undefined;
  if (x.created && x.kc) {
    const name = settings.runNamespace;
    const waitMs = options.saveLogs ? settings.closeWaitMs : DESTROY_WAIT_MS;
    const gone = await deleteOwnedNamespace(x.kc, { name, clock: settings.clock, waitMs }).catch(
      (err: unknown) => {
        settings.onLogs?.(
          `cluster: could not delete namespace ${name}: ${err instanceof Error ? err.message : String(err)}; npm run cluster -- cleanup removes it\n`,
        );
        return true;
      },
    );
    if (!gone)
      settings.onLogs?.(
        `cluster: namespace ${name} still terminating after ${String(waitMs / 1000)} s; npm run cluster -- cleanup lists what is left\n`,
      );
    x.created = false;
  }
  await run.watch?.stop();
}
