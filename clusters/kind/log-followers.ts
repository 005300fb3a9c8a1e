// Every container of ours followed from its start (`kubectl logs -f`), into the run folder's pods/
// as it writes, named as the local backend names its logs: the gateway's access log and ztunnel's
// lines of a pod that is gone by the run's end (an old ztunnel instance after an upgrade, an old
// httpbin after a rollout) are there, whole, which logs read at close (the kubelet keeps the last
// 10 MiB of each, and nothing of a deleted pod) cannot give. The judge reads them as it reads the
// local backend's (harness/explain).
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import type { Writable } from 'node:stream';
import type { V1Pod } from '@kubernetes/client-node';
import type { PodLogRef } from './kube-api.ts';
import type { LogScope } from './run-scope.ts';

export interface LogFollowers {
  /** A pod's update: each of its containers that runs now and is not followed yet is followed. */
  onPod(pod: V1Pod): void;
  /** The files followed, by name (`<ns>_<pod>_<container>.log`). */
  followed(file: string): boolean;
  /** Stops every follow and waits for the files to be written out. Idempotent. */
  close(): Promise<void>;
}

/** Which container a line came from: its log, its image and its pod's node. */
export interface FollowedContainer {
  log: PodLogRef;
  image: string;
  node: string | undefined;
}

export interface LogFollowersOptions {
  dir: string;
  /** Each whole line as it arrives (a lifecycle event some lines are: ztunnel's drain deadline). */
  onLine?(container: FollowedContainer, line: string): void;
  /** Starts following into `out`; resolves with what stops it (client-node's Log with follow). */
  follow(log: PodLogRef, out: Writable): Promise<AbortController>;
  /** A follow that could not start or broke (the pod went before it was read, the API gone). */
  onError?(file: string, err: unknown): void;
  /** Whose logs are written and which lines (run-scope.ts); absent: every pod's, whole. */
  logs?: LogScope | undefined;
}

/**
 * A stream that writes through to `into` and tells each whole line on the way; with `keeps`, only
 * the whole lines it keeps are written (every line is still told).
 */
function lineTap(
  into: Writable,
  onLine: (line: string) => void,
  keeps?: (line: string) => boolean,
): Writable {
  let partial = '';
  const kept = (lines: string[]): string =>
    lines
      .filter((l) => keeps?.(l))
      .map((l) => `${l}\n`)
      .join('');
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) onLine(line);
      done(null, keeps ? kept(lines) : chunk);
    },
    flush(done) {
      if (partial) onLine(partial);
      done(null, keeps && partial ? kept([partial]) : undefined);
    },
  });
  tap.pipe(into);
  return tap;
}

export const logFileOf = (log: PodLogRef): string =>
  `${log.namespace}_${log.pod}_${log.container}${log.previous ? '.previous' : ''}.log`;

export function createLogFollowers(options: LogFollowersOptions): LogFollowers {
  const files = new Set<string>();
  const running: { head: Writable; file: Writable; stop: Promise<AbortController | undefined> }[] = [];
  let closed = false;
  return {
    onPod(pod) {
      if (closed) return;
      const namespace = pod.metadata?.namespace ?? 'default';
      const name = pod.metadata?.name ?? '';
      const scope = options.logs?.of(pod) ?? 'whole';
      if (scope === 'none') return;
      const keeps = scope === 'lines' ? (line: string) => options.logs?.keeps(line) ?? true : undefined;
      for (const status of pod.status?.containerStatuses ?? []) {
        // From the first instance's start; a restarted container's next instance is appended.
        if (!status.state?.running && !status.state?.terminated) continue;
        const log = { namespace, pod: name, container: status.name };
        const file = logFileOf(log);
        if (files.has(file)) continue;
        files.add(file);
        const file_ = createWriteStream(join(options.dir, file), { flags: 'a' });
        const image = pod.spec?.containers.find((c) => c.name === status.name)?.image ?? '';
        const container = { log, image, node: pod.spec?.nodeName };
        const out =
          options.onLine || keeps
            ? lineTap(file_, (line) => options.onLine?.(container, line), keeps)
            : file_;
        file_.on('error', (err) => options.onError?.(file, err));
        // The follow pipes the response into `out` and listens to none of its errors: stopping it
        // (abort) or the API server going would throw one. Each is taken here: after close() it is
        // the stop asked for; before, the log is cut short, told, and its file closed.
        out.on('pipe', (source: NodeJS.ReadableStream) => {
          source.on('error', (err: unknown) => {
            if (!closed) options.onError?.(file, err);
            out.end();
          });
        });
        const stop = options.follow(log, out).catch((err: unknown) => {
          options.onError?.(file, err);
          out.end();
          return undefined;
        });
        running.push({ head: out, file: file_, stop });
      }
    },
    followed: (file) => files.has(file),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(
        running.map(async ({ head, file, stop }) => {
          (await stop)?.abort();
          if (!head.writableEnded) head.end();
          if (!file.writableFinished) await once(file, 'finish').catch(() => undefined);
        }),
      );
    },
  };
}
