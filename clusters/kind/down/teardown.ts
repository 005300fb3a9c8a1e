import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ErrorCode, isHarnessError } from '../../../lib/index.ts';
import { saveFailureEvidence } from '../kind-evidence.ts';
import type { KindRun } from '../kind-run.ts';
import { ours } from '../kind-workloads.ts';
import { KIND_NETWORK } from '../provision/kind-provisioner.ts';

/** Ctrl-C or SIGTERM (an Aborted error, or up()'s signal aborted as one): no time for evidence. */
function isInterruption(run: KindRun, err: unknown): boolean {
  return isHarnessError(err, ErrorCode.Aborted) || isHarnessError(run.upSignal?.reason, ErrorCode.Aborted);
}

/** A failed run's evidence (kind export logs, the troubled pods' logs), told where it went. */
async function keepEvidence(run: KindRun): Promise<void> {
  const { clock, name, kindLogsDir, logDir } = run.settings;
  const kube = run.api;
  const problems = await saveFailureEvidence({
    clock,
    tools: run.tools,
    name,
    kindLogsDir,
    logDir,
    pods: run.watch ? ours(run, run.watch.list('pods')) : undefined,
    readLog: kube ? (log) => kube.podLog(log) : undefined,
    store: run.podLogs,
  });
  const unsaved = problems.length > 0 ? `; not saved: ${problems.join('; ')}` : '';
  run.settings.onLogs?.(
    `kind: ${run.settings.keepCluster ? 'the failed cluster is kept (--keep-cluster: kind delete cluster removes it);' : 'before the cluster was deleted,'} its logs were saved in ${kindLogsDir} (kind export logs), its restarted or non-Ready pods' logs in ${logDir}${unsaved}\n`,
  );
}

/**
 * The cluster's admin credentials after the run: a deleted cluster's private kubeconfig folder goes
 * with it; a kept cluster's stays where it is (0600 in a 0700 folder) and the output says so.
 */
async function settleKubeconfig(run: KindRun): Promise<void> {
  const { keepCluster, name, kubeconfigPath, ownsKubeconfigDir, onLogs } = run.settings;
  if (keepCluster) {
    if (run.created)
      onLogs?.(
        `kind: the kept cluster's kubeconfig holds its admin credentials (mode 0600): ${kubeconfigPath}; \`kind delete cluster --name ${name} --kubeconfig ${kubeconfigPath}\` removes the cluster${run.provisioned?.env['KIND_EXPERIMENTAL_DOCKER_NETWORK'] === KIND_NETWORK ? `, \`docker network rm ${KIND_NETWORK}\` our network` : ''}${ownsKubeconfigDir ? `, \`rm -r ${dirname(kubeconfigPath)}\` the kubeconfig` : ''}\n`,
      );
    return;
  }
  if (ownsKubeconfigDir) await rm(dirname(kubeconfigPath), { recursive: true, force: true });
}

/**
 * The watches stopped, the cluster deleted with our network (unless kept), and a daemon this run
 * started stopped. `failure`: why the cluster goes early (a failed step, destroy(err)); its evidence
 * is kept first, unless it was an interruption.
 */
export async function teardown(run: KindRun, failure?: unknown): Promise<void> {
  const { keepCluster, name, kubeconfigPath } = run.settings;
  await run.logFollowers?.close();
  if (failure !== undefined && run.hasNodes && !isInterruption(run, failure)) await keepEvidence(run);
  await run.watch?.stop();
  if (run.created && !keepCluster) {
    await run.tools.deleteCluster(name, kubeconfigPath);
    // Our network goes with our cluster (kind leaves the networks it makes).
    if (run.provisioned?.env['KIND_EXPERIMENTAL_DOCKER_NETWORK'] === KIND_NETWORK)
      await run.tools.removeNetwork(KIND_NETWORK);
    await run.provisioned?.noteCluster?.(undefined);
  }
  await settleKubeconfig(run);
  run.created = false;
  run.hasNodes = false;
  // A kept cluster keeps its engine (after this process too); otherwise a daemon this run started is stopped.
  await (keepCluster ? run.provisioned?.keep?.() : run.provisioned?.release());
}
