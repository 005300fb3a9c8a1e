// The engine watcher (engine-watcher.ts), run detached as `node engine-watcher-main.ts <spec>`: every
// pollMs, ends when our daemon is gone (the run stopped it); when the run's process is gone with the
// daemon still running, deletes the run's kind cluster and network (if it noted one) and stops the
// daemon as `npm run kind-engine -- stop` does (SIGTERM, SIGKILL after 30 s), then ends.
import { readFile, rm } from 'node:fs/promises';
import { execa } from 'execa';
import { createSystemClock } from '../../../lib/index.ts';
import { stopDaemon } from './docker-engine.ts';
import type { WatchedCluster, WatcherSpec } from './engine-watcher.ts';
import { isStillRunning } from './process-identity.ts';

const spec = JSON.parse(process.argv[2] ?? '{}') as WatcherSpec;
const clock = createSystemClock();
const say = (line: string): void => {
  process.stdout.write(`${new Date().toISOString()} watcher ${String(process.pid)}: ${line}\n`);
};

/** `kind delete cluster` and our network, on our daemon; a failure is told and the daemon stopped anyway. */
async function deleteCluster(cluster: WatchedCluster): Promise<void> {
  const how = { env: spec.env, extendEnv: false, reject: false, stdin: 'ignore', timeout: 120_000 } as const;
  const deleted = await execa(
    cluster.kindPath,
    ['delete', 'cluster', '--name', cluster.name, '--kubeconfig', cluster.kubeconfigPath],
    how,
  );
  say(`kind delete cluster --name ${cluster.name}: exit ${String(deleted.exitCode)} ${deleted.stderr}`);
  if (cluster.network) {
    const removed = await execa('docker', ['network', 'rm', cluster.network], how);
    say(`docker network rm ${cluster.network}: exit ${String(removed.exitCode)}`);
  }
}

async function readCluster(): Promise<WatchedCluster | undefined> {
  const text = await readFile(spec.layout.watchFile, 'utf8').catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as WatchedCluster);
}

say(`watching run ${String(spec.harness.pid)} and dockerd ${String(spec.daemon.pid)}`);
for (;;) {
  if (!(await isStillRunning(spec.daemon))) {
    say('our dockerd is gone: nothing to do');
    break;
  }
  if (!(await isStillRunning(spec.harness))) {
    say(`run ${String(spec.harness.pid)} ended without stopping our dockerd: cleaning up`);
    const cluster = await readCluster();
    if (cluster) await deleteCluster(cluster);
    // The daemon we were given, by its pid, only while it is still that process.
    if (await isStillRunning(spec.daemon)) await stopDaemon(spec.layout, spec.daemon.pid);
    await rm(spec.layout.watchFile, { force: true });
    say('our dockerd stopped');
    break;
  }
  await clock.sleep(spec.pollMs);
}
