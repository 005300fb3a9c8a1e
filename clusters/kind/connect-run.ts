import type { KubeConfig } from '@kubernetes/client-node';
import { ErrorCode, HarnessError, makeDirectory } from '../../lib/index.ts';
import { createClusterWatch } from './cluster-watch.ts';
import { followRunLogs } from './follow-run-logs.ts';
import { failRun } from './kind-run.ts';
import type { KindRun } from './kind-run.ts';
import { createKubeApi } from './kube-api.ts';
import { handleWatchUpdate } from './watch-updates.ts';

/**
 * The run connected to a cluster's API: the API client, the watches started (their updates become
 * lifecycle events, a watch that fails for good fails the run), the run's containers' logs followed
 * into logDir. Returns the API server's version. kind's control-plane step and an existing cluster's
 * connect step both start here.
 */
export async function connectRun(run: KindRun, kc: KubeConfig): Promise<string> {
  const api = createKubeApi(kc);
  const serverVersion = await api.serverVersion();
  const watch = createClusterWatch(kc);
  watch.onUpdate((update) => {
    handleWatchUpdate(run, update);
  });
  watch.onError((err) => {
    failRun(
      run,
      new HarnessError(
        ErrorCode.ComponentFailed,
        `watching cluster ${run.settings.name} failed: ${err.message}`,
        { cause: err },
      ),
    );
  });
  run.api = api;
  run.watch = watch;
  await makeDirectory(run.settings.logDir);
  run.logFollowers = followRunLogs(run, api);
  run.facts['kubernetes_version'] = serverVersion;
  await watch.start();
  return serverVersion;
}
