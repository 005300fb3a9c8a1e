// Fake `kind` and `docker` executables for tests on machines without a Docker engine: each call is
// recorded (argv, stdin and pid) in calls.jsonl and answered the way the real tools answer (stdout,
// stderr and exit code), with failures (and steps that hang until killed) switched on by environment
// variables: FAKE_DOCKER_DOWN, FAKE_DOCKER_CGROUP_V1, FAKE_DOCKER_CONTAINERD_STORE,
// FAKE_DOCKER_BUILD_HANG, FAKE_KIND_CLUSTERS (names `kind get clusters` lists), FAKE_KIND_CREATE_HANG,
// FAKE_KIND_CREATE_FAIL, FAKE_KIND_PORT_TAKEN, FAKE_KIND_LOAD_FAIL, FAKE_KIND_ARCHIVE_FAIL,
// FAKE_KIND_EXPORT_FAIL.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

export interface FakeCall {
  tool: 'kind' | 'docker';
  args: string[];
  stdin: string;
  /** The fake's process (a long step killed on abort is gone). */
  pid: number;
}

/** The fake, in plain JavaScript so it runs on whatever Node is at process.execPath. */
const FAKE_SOURCE = String.raw`
const { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const [tool, ...args] = process.argv.slice(2);
const dir = process.env.FAKE_DIR;
const env = process.env;
let stdin = '';
if (tool === 'kind' && args.includes('-')) stdin = readFileSync(0, 'utf8');
appendFileSync(dir + '/calls.jsonl', JSON.stringify({ tool, args, stdin, pid: process.pid }) + '\n');
const fail = (message) => { process.stderr.write(message + '\n'); process.exit(1); };
const arg = (name) => args[args.indexOf(name) + 1];
// Until killed (SIGTERM ends a Node process that has no handler for it).
const hang = () => setInterval(() => undefined, 1000);
if (tool === 'docker') {
  if (args[0] === 'version') {
    if (env.FAKE_DOCKER_DOWN) fail('Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?');
    process.stdout.write('28.2.2\n');
  } else if (args[0] === 'info') {
    const containerd = Boolean(env.FAKE_DOCKER_CONTAINERD_STORE);
    process.stdout.write(JSON.stringify({
      Driver: containerd ? 'overlayfs' : 'overlay2',
      DriverStatus: containerd ? [['driver-type', 'io.containerd.snapshotter.v1']] : [['Backing Filesystem', 'extfs'], ['Supports d_type', 'true']],
      CgroupVersion: env.FAKE_DOCKER_CGROUP_V1 ? '1' : '2',
      Architecture: 'x86_64',
    }) + '\n');
  } else if (args[0] === 'build') {
    if (env.FAKE_DOCKER_BUILD_HANG) return hang();
    process.stderr.write('#0 building with "default" instance using docker driver\n');
  } else if (args[0] === 'save') {
    writeFileSync(arg('--output'), 'an image archive of ' + args[args.length - 1]);
  } else fail('docker: unknown command ' + args[0]);
  return;
}
const cmd = args.slice(0, 2).join(' ');
if (args[0] === 'version') process.stdout.write('kind v0.33.0 go1.26.8 linux/amd64\n');
else if (cmd === 'get clusters') {
  const names = (env.FAKE_KIND_CLUSTERS || '').split(',').filter(Boolean);
  if (names.length === 0) process.stderr.write('No kind clusters found.\n');
  for (const name of names) process.stdout.write(name + '\n');
} else if (cmd === 'create cluster') {
  if (env.FAKE_KIND_CREATE_HANG) return hang();
  if (env.FAKE_KIND_CREATE_FAIL) fail('ERROR: failed to create cluster: failed to init node with kubeadm: command "docker exec --privileged ' + arg('--name') + '-control-plane kubeadm init --config=/kind/kubeadm.conf --skip-token-print --v=6" failed with error: exit status 1');
  if (env.FAKE_KIND_PORT_TAKEN) {
    const port = /hostPort: (\d+)/.exec(stdin)[1];
    fail('ERROR: failed to create cluster: command "docker run --name ' + arg('--name') + '-control-plane ..." failed with error: exit status 125\nCommand Output: docker: Error response from daemon: driver failed programming external connectivity on endpoint ' + arg('--name') + '-control-plane: Bind for 127.0.0.1:' + port + ' failed: port is already allocated.');
  }
  process.stderr.write('Creating cluster "' + arg('--name') + '" ...\n');
} else if (cmd === 'load docker-image') {
  if (env.FAKE_KIND_LOAD_FAIL) fail('ERROR: failed to load image: command "docker exec --privileged -i ' + arg('--name') + '-control-plane ctr --namespace=k8s.io images import --all-platforms --digests --snapshotter=overlayfs -" failed with error: exit status 1\nCommand Output: ctr: content digest sha256:0123: not found');
  for (const image of args.slice(4)) process.stderr.write('Image: "' + image + '" with ID "sha256:0" not yet present on node "' + arg('--name') + '-worker", loading...\n');
} else if (cmd === 'load image-archive') {
  if (env.FAKE_KIND_ARCHIVE_FAIL) fail('ERROR: failed to load image: command "docker exec ..." failed with error: exit status 1');
  if (!existsSync(args[args.length - 1])) fail('ERROR: open ' + args[args.length - 1] + ': no such file or directory');
} else if (cmd === 'get kubeconfig') process.stdout.write(readFileSync(dir + '/kubeconfig', 'utf8'));
else if (cmd === 'export logs') {
  if (env.FAKE_KIND_EXPORT_FAIL) fail('ERROR: unknown cluster "' + arg('--name') + '"');
  mkdirSync(args[2], { recursive: true });
  writeFileSync(args[2] + '/kind-version.txt', 'kind v0.33.0 go1.26.8 linux/amd64\n');
  process.stdout.write('Exporting logs for cluster "' + arg('--name') + '" to:\n' + args[2] + '\n');
} else if (cmd === 'delete cluster') process.stderr.write('Deleting cluster "' + arg('--name') + '" ...\n');
else fail('ERROR: unknown command "' + args.join(' ') + '" for "kind"');
`;

export interface FakeTools {
  dir: string;
  /** PATH with the fakes first. */
  path: string;
  calls(): Promise<FakeCall[]>;
}

/** Every folder of fakes this test file made, removed when its tests are done. */
const made: string[] = [];
after(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

/** Writes the fakes into a fresh folder; `kubeconfig` is what `kind get kubeconfig` prints. */
export async function createFakeKindAndDocker(kubeconfig: string): Promise<FakeTools> {
  const dir = await mkdtemp(join(tmpdir(), 'fake-kind-'));
  made.push(dir);
  await writeFile(join(dir, 'fake.cjs'), FAKE_SOURCE);
  await writeFile(join(dir, 'kubeconfig'), kubeconfig);
  await writeFile(join(dir, 'calls.jsonl'), '');
  for (const tool of ['kind', 'docker']) {
    const script = join(dir, tool);
    await writeFile(
      script,
      `#!/bin/sh\nexec "${process.execPath}" "${join(dir, 'fake.cjs')}" ${tool} "$@"\n`,
    );
    await chmod(script, 0o755);
  }
  return {
    dir,
    path: `${dir}:${process.env['PATH'] ?? ''}`,
    async calls() {
      const text = await readFile(join(dir, 'calls.jsonl'), 'utf8');
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as FakeCall);
    },
  };
}

/** A kubeconfig like `kind get kubeconfig` prints, pointing at `server`. */
export function kindKubeconfig(name: string, server: string): string {
  const context = `kind-${name}`;
  return [
    'apiVersion: v1',
    'kind: Config',
    // The double speaks plain HTTP, which client-node allows only with TLS verification off.
    `clusters:\n- cluster:\n    server: ${server}\n    insecure-skip-tls-verify: true\n  name: ${context}`,
    `contexts:\n- context:\n    cluster: ${context}\n    user: ${context}\n  name: ${context}`,
    `current-context: ${context}`,
    `users:\n- name: ${context}\n  user:\n    token: test-token`,
    '',
  ].join('\n');
}
