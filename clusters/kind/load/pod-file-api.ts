// fortio's files out of its pod through the API server (`kubectl exec -- cat`), for a cluster whose
// nodes this machine cannot reach (an existing cluster's): the pod keeps its container running after
// fortio ends (FORTIO_EXIT_MARKER on its stdout, then a sleep), so its files can be read before the
// pod is deleted. kind's pods use the node's folder instead (fortio-pod-run.ts), which also gives the
// live counts.
import { createWriteStream } from 'node:fs';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { Exec } from '@kubernetes/client-node';
import type { KubeConfig, V1Status } from '@kubernetes/client-node';
import { FORTIO_EXIT_MARKER } from '../../manifests/index.ts';

export interface PodContainerRef {
  namespace: string;
  pod: string;
  container: string;
}

/** fortio's exit code once the pod's stdout says it ended; undefined while it runs. */
export function fortioExitOf(log: string): number | undefined {
  const match = new RegExp(`^${FORTIO_EXIT_MARKER} (\\d+)$`, 'm').exec(log);
  return match ? Number(match[1]) : undefined;
}

/** Runs `command` in the container, its stdout into `out`; rejects with its stderr when it fails. */
function execInto(kc: KubeConfig, ref: PodContainerRef, command: string[], out: Writable): Promise<void> {
  let stderr = '';
  const err = new Writable({
    write(chunk: Buffer, _encoding, done) {
      stderr += chunk.toString();
      done();
    },
  });
  return new Promise((resolve, reject) => {
    let status: V1Status | undefined;
    new Exec(kc)
      .exec(ref.namespace, ref.pod, ref.container, command, out, err, null, false, (s) => {
        status = s;
      })
      .then((socket) => {
        // isomorphic-ws's WebSocket, whose types do not resolve here: only its events are used.
        const ws = socket as unknown as { on(event: string, listener: (err?: unknown) => void): void };
        ws.on('close', () => {
          if (status?.status === 'Success') resolve();
          else
            reject(
              new Error(
                `${command.join(' ')} in ${ref.namespace}/${ref.pod}: ${status?.message ?? 'no status'} ${stderr.trim()}`.trim(),
              ),
            );
        });
        ws.on('error', reject);
      }, reject);
  });
}

/** A file of the container copied to `hostPath` (`cat` over exec; the stream ended and flushed). */
export async function copyFileFromPod(
  kc: KubeConfig,
  ref: PodContainerRef,
  path: string,
  hostPath: string,
): Promise<void> {
  const file = createWriteStream(hostPath);
  try {
    await execInto(kc, ref, ['cat', path], file);
  } finally {
    file.end();
    await finished(file);
  }
}

/** A file of the container, as text (fortio's output log, for this process's stdout). */
export async function readFileFromPod(kc: KubeConfig, ref: PodContainerRef, path: string): Promise<string> {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  await execInto(kc, ref, ['cat', path], out);
  return Buffer.concat(chunks).toString('utf8');
}
