// fortio's output and files brought back once it has ended, from its node's folder (kind: the node
// is a container of this machine's engine) or through the API server while its container waits (an
// existing cluster's: pod-file-api.ts). Either way they land at the host paths the harness gave.
import type { CoreV1Api, KubeConfig, V1Pod } from '@kubernetes/client-node';
import type { Clock } from '../../../lib/index.ts';
import type { KubeApi } from '../kube-api.ts';
import type { PodFile } from './fortio-pod-argv.ts';
import { execa } from 'execa';
import { FORTIO_NODE_DIR, FORTIO_POD_OUT_DIR, FORTIO_POD_OUTPUT } from '../../manifests/index.ts';
import { copyFileFromPod, readFileFromPod } from './pod-file-api.ts';

/** One fortio pod's run: where it is, what it writes, how its files come back. */
export interface PodRun {
  kc: KubeConfig;
  core: CoreV1Api;
  api: KubeApi;
  namespace: string;
  name: string;
  files: readonly PodFile[];
  clock: Clock;
  dockerEnv: Record<string, string>;
  viaApi: boolean;
}

const say = (line: string): void => {
  process.stderr.write(`fortio-pod: ${line}\n`);
};

/** Its output and files from the node's folder (kind: the node is a container of this engine). */
export async function collectFromNode(run: PodRun, pod: V1Pod): Promise<void> {
  const node = pod.spec?.nodeName ?? '';
  const dir = `${FORTIO_NODE_DIR}/${run.name}`;
  const docker = { env: run.dockerEnv, extendEnv: true, reject: false } as const;
  // fortio's output, as a host fortio's would have reached the harness.
  await execa('docker', ['exec', node, 'cat', `${dir}/${FORTIO_POD_OUTPUT}`], {
    ...docker,
    stdout: 'inherit',
    stderr: 'inherit',
  });
  for (const file of run.files) {
    const copied = await execa('docker', ['cp', `${node}:${dir}/${file.name}`, file.hostPath], docker);
    if (copied.exitCode !== 0) say(`could not copy ${file.name} from ${node}: ${copied.stderr}`);
  }
  await execa('docker', ['exec', node, 'rm', '-rf', dir], docker);
}

/** Its output and files read through the API server while the container waits (any cluster). */
export async function collectViaApi(run: PodRun, pod: V1Pod): Promise<void> {
  const ref = { namespace: run.namespace, pod: run.name, container: 'fortio' };
  if (pod.status?.phase !== 'Running') {
    say('the container ended before its files were read: none brought back');
    return;
  }
  const output = await readFileFromPod(run.kc, ref, `${FORTIO_POD_OUT_DIR}/${FORTIO_POD_OUTPUT}`).catch(
    (err: unknown) => {
      say(`could not read fortio's output: ${String(err)}`);
      return '';
    },
  );
  process.stdout.write(output);
  for (const file of run.files)
    await copyFileFromPod(run.kc, ref, `${FORTIO_POD_OUT_DIR}/${file.name}`, file.hostPath).catch(
      (err: unknown) => {
        say(`could not copy ${file.name} from the pod: ${String(err)}`);
      },
    );
}
