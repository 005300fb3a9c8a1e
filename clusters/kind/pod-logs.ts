import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { makeDirectory } from '../../lib/index.ts';
import type { PodLogRef } from './kube-api.ts';
import { isPodReady } from './pod-info.ts';

/** Lines of each container's log kept in memory for logs() (its tail); the files hold all of it. */
const KEPT_LINES = 2000;

export interface SavePodLogsOptions {
  pods: readonly V1Pod[];
  /** Where the files go, named as the local backend names them: `<ns>_<pod>_<container>.log`. */
  dir: string;
  readLog: (log: PodLogRef) => Promise<string>;
  /** Files already in `dir`, written as the container ran (log-followers.ts): kept unless shorter than the API's. */
  kept?: (file: string) => boolean;
}

export interface SavedPodLogs {
  files: string[];
  /** One line per log that could not be read (a container still waiting, a pod already gone). */
  failures: string[];
}

export interface PodLogStore {
  /** The last lines of every saved container log of `namespace/pod`, previous instances first. */
  lines(pod: string): readonly string[] | undefined;
  /**
   * Saves each container's log (`kubectl logs`), and for a container that restarted the instance
   * before (`kubectl logs --previous`) as `<ns>_<pod>_<container>.previous.log`.
   */
  save(options: SavePodLogsOptions): Promise<SavedPodLogs>;
}

/** Whether a pod is worth a look after a failure: a container restarted, or it is not Ready. */
export function isTroubled(pod: V1Pod): boolean {
  return !isPodReady(pod) || (pod.status?.containerStatuses ?? []).some((s) => s.restartCount > 0);
}

export function createPodLogStore(): PodLogStore {
  const kept = new Map<string, Map<string, string[]>>();
  const keep = (pod: string, file: string, text: string): void => {
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    const files = kept.get(pod) ?? new Map<string, string[]>();
    files.set(file, lines.slice(-KEPT_LINES));
    kept.set(pod, files);
  };
  return {
    lines(pod) {
      const files = kept.get(pod);
      if (!files) return undefined;
      // Per container, the instance before the restart first, then the current one.
      const order = (file: string): string => file.replace(/\.previous\.log$/, '.0').replace(/\.log$/, '.1');
      return [...files.keys()]
        .sort((a, b) => order(a).localeCompare(order(b)))
        .flatMap((f) => files.get(f) ?? []);
    },
    async save({ pods, dir, readLog, kept: isKept }) {
      await makeDirectory(dir);
      const saved: SavedPodLogs = { files: [], failures: [] };
      const wanted = pods.flatMap((pod) => logsOf(pod));
      await Promise.all(
        wanted.map(async (log) => {
          const file = `${log.namespace}_${log.pod}_${log.container}${log.previous ? '.previous' : ''}.log`;
          try {
            // A followed log is kept as followed unless the API server has more of it (a follow cut
            // short); the kubelet keeps only the last 10 MiB, so a busy one is longer followed.
            const followed = isKept?.(file) ? await readFile(join(dir, file), 'utf8') : undefined;
            const read = await readLog(log).catch((err: unknown) => {
              if (followed === undefined) throw err;
              return '';
            });
            const text = followed !== undefined && followed.length >= read.length ? followed : read;
            if (text !== followed) await writeFile(join(dir, file), text);
            keep(`${log.namespace}/${log.pod}`, file, text);
            saved.files.push(file);
          } catch (err) {
            saved.failures.push(`${file}: ${describeError(err)}`);
          }
        }),
      );
      saved.files.sort();
      saved.failures.sort();
      return saved;
    },
  };
}

/** Every container's current log, and the previous instance's where the container restarted. */
function logsOf(pod: V1Pod): PodLogRef[] {
  const namespace = pod.metadata?.namespace ?? 'default';
  const name = pod.metadata?.name ?? '';
  const statuses = new Map((pod.status?.containerStatuses ?? []).map((s) => [s.name, s]));
  return (pod.spec?.containers ?? []).flatMap((c) => [
    ...((statuses.get(c.name)?.restartCount ?? 0) > 0
      ? [{ namespace, pod: name, container: c.name, previous: true }]
      : []),
    { namespace, pod: name, container: c.name },
  ]);
}

/** client-node's ApiException carries the API server's Status in `body`; its message says why. */
function describeError(err: unknown): string {
  const e = err as { code?: number; body?: unknown; message?: string };
  const body = typeof e.body === 'string' ? e.body : JSON.stringify(e.body ?? '');
  const message = /"message":"([^"]*)"/.exec(body)?.[1];
  return message ? `HTTP ${String(e.code ?? '?')}: ${message}` : (e.message ?? String(err));
}
