import { basename } from 'node:path';
import { ErrorCode, HarnessError } from '../../../lib/index.ts';
import { FORTIO_POD_OUT_DIR } from '../../manifests/index.ts';

/** A file fortio writes in the pod that the run folder expects at `hostPath`. */
export interface PodFile {
  /** The file's name in the pod's out folder (and on the node). */
  name: string;
  hostPath: string;
}

export interface FortioPodArgv {
  /** fortio's arguments in the pod (no executable): its files in the out folder, the URL in-cluster. */
  args: string[];
  /** What to copy back into the run folder once fortio has exited. */
  files: PodFile[];
}

/** fortio's flags naming a file it writes (run-fortio.ts's fortioArgs). */
const FILE_FLAGS = new Set(['-access-log-file', '-json']);

/**
 * The host's fortio command line made the pod's: the files it writes go to the pod's out folder
 * (copied back to the same host paths afterwards, so the tally reads them unchanged) and the URL
 * that reached the gateway through the host's ingress (docker-proxy, the NodePort) reaches it at
 * `target` (the gateway Service's ClusterIP:port); a pod's own address is kept (the pod reaches it).
 * Refuses another address of this host: it is not there from the pod.
 */
export function podArgvOf(
  argv: readonly string[],
  where: { ingress: string; target: string; headers?: readonly string[] },
): FortioPodArgv {
  const [, ...rest] = argv;
  const files: PodFile[] = [];
  const args = rest.map((arg, k) => {
    const flag = rest[k - 1];
    if (flag !== undefined && FILE_FLAGS.has(flag)) {
      const name = basename(arg);
      files.push({ name, hostPath: arg });
      return `${FORTIO_POD_OUT_DIR}/${name}`;
    }
    return arg;
  });
  const last = args.length - 1;
  const url = new URL(args[last] ?? '');
  // A pod's own address (E3's long-lived connections straight to the pods) is reached from the pod
  // as it is; a host address other than the ingress is not there.
  if (url.host === where.ingress) url.host = where.target;
  else if (url.hostname.startsWith('127.') || url.hostname === 'localhost')
    throw new HarnessError(
      ErrorCode.BadInput,
      `--load-from cluster reaches the gateway and the pods, got the target ${url.href} (the ingress is ${where.ingress}); use --load-from host`,
    );
  args[last] = url.href;
  // Each header before the URL, as fortio's -H takes them (`Host: x` sets the request's authority).
  args.splice(last, 0, ...(where.headers ?? []).flatMap((h) => ['-H', h]));
  return { args, files };
}
