// ClusterBackend.startClientPod on kind: a client of ours as a pod outside the mesh (E3's long-lived
// connections: kind's pod addresses are reachable only from inside the cluster). Its output is
// followed from its start, so every line it writes, the result it writes at SIGTERM included, is
// read before the pod is gone (a deleted pod's log goes with it).
import { Writable } from 'node:stream';
import type { V1Pod } from '@kubernetes/client-node';
import { HarnessError, ErrorCode, waitAtMost } from '../../../lib/index.ts';
import type { ClientPod } from '../../backend.ts';
import {
  buildClientPod,
  buildLoadNamespace,
  CLIENT_POD_GRACE_S,
  LOAD_NAMESPACE,
} from '../../manifests/index.ts';
import type { ClientPodOptions } from '../../manifests/index.ts';
import type { KindRun } from '../kind-run.ts';
import { need, waitForChange } from '../kind-workloads.ts';
import { isStuck, whyNotStarted } from './pod-start.ts';

/** How long the pod may take to start (its image is on the node already). */
const START_TIMEOUT_MS = 60_000;

/** Why a pod will not start by itself, or undefined while it may. */
function stuckReason(pod: V1Pod): string | undefined {
  if (isStuck(pod)) return whyNotStarted(pod);
  const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
  return terminated ? `it exited at once with code ${String(terminated.exitCode)}` : undefined;
}

/** The lines written into it, whole. */
function lineCollector(): { out: Writable; lines: string[]; ended: Promise<void> } {
  const lines: string[] = [];
  let partial = '';
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const split = (partial + chunk.toString('utf8')).split('\n');
      partial = split.pop() ?? '';
      lines.push(...split);
      done();
    },
    final(done) {
      if (partial) lines.push(partial);
      done();
    },
  });
  const ended = new Promise<void>((resolve) => {
    out.on('finish', resolve);
    out.on('error', () => {
      resolve();
    });
    out.on('pipe', (source: NodeJS.ReadableStream) => {
      source.on('error', () => {
        out.end();
      });
    });
  });
  return { out, lines, ended };
}

export async function startClientPod(run: KindRun, options: ClientPodOptions): Promise<ClientPod> {
  const { api, watch } = need(run);
  const { name } = options;
  const namespace = options.placement?.namespace ?? LOAD_NAMESPACE;
  const podOf = (): V1Pod | undefined =>
    watch.list('pods').find((p) => p.metadata?.namespace === namespace && p.metadata.name === name);
  // kind's load namespace is made here; an existing cluster's run namespace is the backend's.
  if (!options.placement) await api.apply(buildLoadNamespace());
  await api.apply(buildClientPod(options));
  const started = await waitForChange(run, {
    what: `client pod ${namespace}/${name} to start`,
    timeoutMs: START_TIMEOUT_MS,
    check: () => {
      const pod = podOf();
      if (!pod) return undefined;
      const reason = stuckReason(pod);
      if (reason) return { reason };
      return pod.status?.containerStatuses?.[0]?.state?.running ? { reason: undefined } : undefined;
    },
  }).catch(async (err: unknown) => {
    await api.deletePod(namespace, name, 0).catch(() => undefined);
    throw err;
  });
  if (started.reason) {
    await api.deletePod(namespace, name, 0).catch(() => undefined);
    throw new HarnessError(
      ErrorCode.LoadFailed,
      `client pod ${namespace}/${name} did not run: ${started.reason}`,
    );
  }
  const collected = lineCollector();
  const follow = await api.followPodLog({ namespace, pod: name, container: 'client' }, collected.out);
  return {
    async stop() {
      await api.deletePod(namespace, name, CLIENT_POD_GRACE_S);
      // The follow ends when the container has exited (its last line read); at most its grace.
      const ended = await waitAtMost(run.settings.clock, collected.ended, (CLIENT_POD_GRACE_S + 5) * 1000);
      if (!ended.done) follow.abort();
      return collected.lines;
    },
  };
}
