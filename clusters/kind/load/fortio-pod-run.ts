import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { V1Pod } from '@kubernetes/client-node';
import { createSystemClock } from '../../../lib/index.ts';
import type { Clock } from '../../../lib/index.ts';
import {
  buildFortioPod,
  buildLoadNamespace,
  FORTIO_NODE_DIR,
  GATEWAY_SERVICE_PORT,
  KIND_LOAD_PLACEMENT,
} from '../../manifests/index.ts';
import type { LoadPodPlacement } from '../../manifests/index.ts';
import { createKubeApi } from '../kube-api.ts';
import { podArgvOf } from './fortio-pod-argv.ts';
import { collectFromNode, collectViaApi } from './fortio-pod-files.ts';
import type { PodRun } from './fortio-pod-files.ts';
import { fortioExitOf } from './pod-file-api.ts';
import type { PodFile } from './fortio-pod-argv.ts';
import { createFileMirror, hostPathOfNodeFile } from './node-file-mirror.ts';
import type { FileMirror } from './node-file-mirror.ts';
import { findPodCpuFile, startPodCpuSampler } from './pod-cpu.ts';
import { isStuck, whyNotStarted } from './pod-start.ts';
import type { PodCpuSample } from './pod-cpu.ts';

/** The pod's CPU per second (from its cgroup on the node), beside fortio's files in the run folder. */
export const POD_CPU_FILE = 'pod-cpu.csv';

/** What the kind backend tells the pod's runner (one JSON argument): where the cluster and the node are. */
export interface FortioPodConfig {
  /** The kubeconfig file ('' : $KUBECONFIG or ~/.kube/config, as kubectl reads it). */
  kubeconfig: string;
  /** Its context (default: its current one). */
  context?: string;
  /** The Docker engine's environment (DOCKER_HOST): the node containers, for the files. */
  dockerEnv: Record<string, string>;
  /** host:port the host's fortio would call (the ingress), swapped for the gateway's ClusterIP. */
  ingress: string;
  podName: string;
  /** Where the pod goes (default kind's: the load namespace, our images loaded). */
  placement?: LoadPodPlacement;
  /** The gateway Service whose ClusterIP fortio calls (default istio-system/istio-ingressgateway). */
  gateway?: { namespace: string; name: string };
  /** Headers fortio sends (`-H`): an existing cluster's route is by Host (clusters/cluster/). */
  headers?: readonly string[];
}

const KIND_GATEWAY_SERVICE = { namespace: 'istio-system', name: 'istio-ingressgateway' };

/** How long the pod may take to be scheduled and started (its image is on the node already). */
const START_TIMEOUT_MS = 120_000;
const POLL_MS = 250;

const say = (line: string): void => {
  process.stderr.write(`fortio-pod: ${line}\n`);
};

/** The container's exit code once it has ended; undefined while it runs. */
function exitCodeOf(pod: V1Pod): number | undefined {
  const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
  if (terminated) return terminated.exitCode;
  if (pod.status?.phase === 'Failed') return 1;
  return undefined;
}

/** The pod's CPU read from its cgroup on this host each second (kind's nodes are containers here). */
async function startCpu(pod: V1Pod, clock: Clock) {
  const file = await findPodCpuFile(pod.metadata?.uid ?? '');
  if (!file) say("the pod's cgroup is not visible from this host: no CPU per second for it");
  return file ? startPodCpuSampler({ file, clock }) : { stop: () => Promise.resolve([]) };
}

/** pod-cpu.csv beside fortio's JSON result, and its average and peak on stderr (fortio's log). */
async function writePodCpu(samples: readonly PodCpuSample[], files: readonly PodFile[]): Promise<void> {
  const json = files.find((f) => f.name.endsWith('.json'));
  if (!json || samples.length === 0) return;
  const path = join(dirname(json.hostPath), POD_CPU_FILE);
  await writeFile(
    path,
    ['t_ms,cpu_pct', ...samples.map((s) => `${String(Math.round(s.tMs))},${s.cpuPct.toFixed(1)}`)].join(
      '\n',
    ) + '\n',
  );
  const avg = samples.reduce((n, s) => n + s.cpuPct, 0) / samples.length;
  const max = Math.max(...samples.map((s) => s.cpuPct));
  say(
    `pod CPU from its cgroup: ${String(samples.length)} s, avg ${avg.toFixed(1)}%, max ${max.toFixed(1)}% of one core (${path})`,
  );
}

/**
 * fortio in a pod, start to end: the gateway Service's ClusterIP read, the namespace and the pod
 * applied, its end awaited, then its output written to this process's stdout (the harness condenses
 * it as it does a host fortio's) and its files copied from the node to the host paths the harness
 * gave. Returns fortio's exit code (1 when the pod never ran, with why on stderr). SIGTERM deletes
 * the pod (fortio stops and still writes its files).
 */
export async function runFortioPod(
  config: FortioPodConfig,
  argv: readonly string[],
  clock: Clock = createSystemClock(),
): Promise<number> {
  const kc = new KubeConfig();
  if (config.kubeconfig) kc.loadFromFile(config.kubeconfig);
  else kc.loadFromDefault();
  if (config.context) kc.setCurrentContext(config.context);
  const core = kc.makeApiClient(CoreV1Api);
  const api = createKubeApi(kc);
  const service = await core.readNamespacedService(config.gateway ?? KIND_GATEWAY_SERVICE);
  const clusterIp = service.spec?.clusterIP ?? '';
  const { args, files } = podArgvOf(argv, {
    ingress: config.ingress,
    target: `${clusterIp}:${String(GATEWAY_SERVICE_PORT)}`,
    headers: config.headers ?? [],
  });
  const name = config.podName;
  const placement = config.placement ?? KIND_LOAD_PLACEMENT;
  const namespace = placement.namespace;
  // kind's load namespace is made here; an existing cluster's run namespace is the backend's.
  if (!config.placement) await api.apply(buildLoadNamespace());
  await api.apply(buildFortioPod({ name, args, placement }));
  say(
    `pod ${namespace}/${name} calling ${clusterIp}:${String(GATEWAY_SERVICE_PORT)} (the gateway's ClusterIP)`,
  );
  const stop = (): void => {
    say('stopping: deleting the pod (fortio gets SIGTERM)');
    void api.deletePod(namespace, name, 5).catch((err: unknown) => {
      say(`could not delete the pod: ${String(err)}`);
    });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    return await awaitPod({
      kc,
      core,
      api,
      namespace,
      name,
      files,
      clock,
      dockerEnv: config.dockerEnv,
      viaApi: placement.filesVia === 'api',
    });
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  }
}

/**
 * fortio's access log (the .jsonl it appends a record to per request) copied to the run folder as it
 * grows, so the harness's live counts read it as they read a host fortio's; none where the node's
 * folder is not visible from here (the counts then come at the end, with the files).
 */
async function mirrorRecords(
  pod: V1Pod,
  files: readonly PodFile[],
  dockerEnv: Record<string, string>,
): Promise<FileMirror[]> {
  const records = files.filter((f) => f.name.endsWith('.jsonl'));
  const dir = await hostPathOfNodeFile({
    node: pod.spec?.nodeName ?? '',
    path: `${FORTIO_NODE_DIR}/${pod.metadata?.name ?? ''}`,
    dockerEnv,
  });
  if (!dir) say("the node's folder is not visible from this host: the load's counts come at its end");
  return dir ? records.map((f) => createFileMirror(join(dir, f.name), f.hostPath)) : [];
}

/** fortio's exit code: its container's (node), or what the waiting container says (api). */
async function fortioExit(run: PodRun, pod: V1Pod): Promise<number | undefined> {
  const ended = exitCodeOf(pod);
  if (ended !== undefined || !run.viaApi || pod.status?.phase !== 'Running') return ended;
  const log = await run.api.podLog({ namespace: run.namespace, pod: run.name, container: 'fortio' });
  return fortioExitOf(log);
}

/** The pod's end awaited, its output and files brought back, the pod gone: fortio's exit code. */
async function awaitPod(run: PodRun): Promise<number> {
  const { core, api, namespace, name, files, clock } = run;
  const startedBy = clock.now() + START_TIMEOUT_MS;
  let pod = await core.readNamespacedPod({ name, namespace });
  let code = await fortioExit(run, pod);
  let cpu: { stop(): Promise<PodCpuSample[]> } | undefined;
  let mirrors: FileMirror[] | undefined;
  while (code === undefined) {
    if (pod.status?.phase === 'Running' && !cpu) cpu = await startCpu(pod, clock);
    if (pod.status?.phase === 'Running' && !mirrors)
      mirrors = run.viaApi ? [] : await mirrorRecords(pod, files, run.dockerEnv);
    await Promise.all((mirrors ?? []).map((m) => m.poll()));
    if (pod.status?.phase === 'Pending' && (clock.now() > startedBy || isStuck(pod))) {
      say(`the pod did not start (${String(START_TIMEOUT_MS / 1000)} s at most): ${whyNotStarted(pod)}`);
      await api.deletePod(namespace, name, 0);
      return 1;
    }
    await clock.sleep(POLL_MS);
    pod = await core.readNamespacedPod({ name, namespace });
    code = await fortioExit(run, pod);
  }
  const cpuSamples = await cpu?.stop();
  await (run.viaApi ? collectViaApi(run, pod) : collectFromNode(run, pod));
  if (cpuSamples) await writePodCpu(cpuSamples, files);
  if (code !== 0)
    say(
      `fortio in pod ${namespace}/${name} on ${pod.spec?.nodeName ?? '?'} exited with code ${String(code)}`,
    );
  await api.deletePod(namespace, name, 0).catch((err: unknown) => {
    say(`could not delete the pod: ${String(err)}`);
  });
  return code;
}
