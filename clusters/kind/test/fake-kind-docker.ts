// Fake `kind` and `docker` executables for tests on machines without a Docker engine: each call is
// recorded (argv and stdin) in calls.jsonl and answered the way the real tools answer (stdout,
// stderr and exit code), with failures switched on by environment variables.
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FakeCall {
  tool: 'kind' | 'docker';
  args: string[];
  stdin: string;
}

/** The fake, in plain JavaScript so it runs on whatever Node is at process.execPath. */
const FAKE_SOURCE = String.raw`
const { appendFileSync, readFileSync } = require('node:fs');
const [tool, ...args] = process.argv.slice(2);
const dir = process.env.FAKE_DIR;
let stdin = '';
if (tool === 'kind' && args.includes('-')) stdin = readFileSync(0, 'utf8');
appendFileSync(dir + '/calls.jsonl', JSON.stringify({ tool, args, stdin }) + '\n');
const fail = (message) => { process.stderr.write(message + '\n'); process.exit(1); };
const arg = (name) => args[args.indexOf(name) + 1];
if (tool === 'docker') {
  if (args[0] === 'version') {
    if (process.env.FAKE_DOCKER_DOWN) fail('Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?');
    process.stdout.write('28.2.2\n');
  } else if (args[0] === 'build') {
    process.stderr.write('#0 building with "default" instance using docker driver\n');
  } else fail('docker: unknown command ' + args[0]);
  process.exit(0);
}
const cmd = args.slice(0, 2).join(' ');
if (args[0] === 'version') process.stdout.write('kind v0.33.0 go1.26.8 linux/amd64\n');
else if (cmd === 'create cluster') {
  if (process.env.FAKE_KIND_CREATE_FAIL) fail('ERROR: failed to create cluster: node(s) already exist for a cluster with the name "' + arg('--name') + '"');
  process.stderr.write('Creating cluster "' + arg('--name') + '" ...\n');
} else if (cmd === 'load docker-image') {
  if (process.env.FAKE_KIND_LOAD_FAIL) fail('ERROR: image: "' + args[args.length - 1] + '" not present locally');
  for (const image of args.slice(4)) process.stderr.write('Image: "' + image + '" with ID "sha256:0" not yet present on node "' + arg('--name') + '-worker", loading...\n');
} else if (cmd === 'get kubeconfig') process.stdout.write(readFileSync(dir + '/kubeconfig', 'utf8'));
else if (cmd === 'delete cluster') process.stderr.write('Deleting cluster "' + arg('--name') + '" ...\n');
else fail('ERROR: unknown command "' + args.join(' ') + '" for "kind"');
`;

export interface FakeTools {
  dir: string;
  /** PATH with the fakes first. */
  path: string;
  calls(): Promise<FakeCall[]>;
}

/** Writes the fakes into a fresh folder; `kubeconfig` is what `kind get kubeconfig` prints. */
export async function createFakeKindAndDocker(kubeconfig: string): Promise<FakeTools> {
  const dir = await mkdtemp(join(tmpdir(), 'fake-kind-'));
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
