// The dockerd a run starts goes when the run's process dies without stopping it (SIGKILL: no handler
// of ours runs), its kind cluster deleted first; a dockerd kept on purpose (`npm run kind-engine --
// start`, a kept cluster) outlives the run. Real processes: the run (engine-run-child.ts), our
// "dockerd" (a shell that sleeps), the watcher; fake docker and kind record what they were asked.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readStartTicks } from '../provision/process-identity.ts';

const CHILD = join(import.meta.dirname, 'engine-run-child.ts');

/** docker answers only on our socket while the fake dockerd runs; docker and kind log their calls. */
async function setUp(t: { after: (fn: () => Promise<void>) => void }) {
  const dir = await mkdtemp(join(tmpdir(), 'engine-watch-'));
  const calls = join(dir, 'calls.log');
  await writeFile(
    join(dir, 'docker'),
    `#!/bin/sh
echo "docker $*" >> "${calls}"
pid=$(cat "${dir}/dockerd.pid" 2>/dev/null)
if [ "$1" = version ] && [ "$DOCKER_HOST" = "unix://${dir}/ztunnel-harness-docker.sock" ] && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then echo 20.10.0-fake; exit 0; fi
[ "$1" = network ] && exit 0
echo "Cannot connect to the Docker daemon" >&2; exit 1
`,
    { mode: 0o755 },
  );
  await writeFile(join(dir, 'dockerd'), `#!/bin/sh\necho $$ > "${dir}/dockerd.pid"\nexec sleep 300\n`, {
    mode: 0o755,
  });
  await writeFile(join(dir, 'kind'), `#!/bin/sh\necho "kind $*" >> "${calls}"\n`, { mode: 0o755 });
  const daemonPid = async (): Promise<number> =>
    Number((await readFile(join(dir, 'dockerd.pid'), 'utf8')).trim());
  t.after(async () => {
    // Whatever a failed assertion left: our fake daemon, by the pid it wrote.
    if (existsSync(join(dir, 'dockerd.pid')) && (await isRunning(await daemonPid())))
      process.kill(await daemonPid(), 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The consent to start our daemon, as CI gives it (lib/host-consent.ts).
    CI: 'true',
    PATH: `${dir}:${process.env['PATH'] ?? ''}`,
    ENGINE_DIR: dir,
  };
  delete env['DOCKER_HOST'];
  const calls_ = async (): Promise<string[]> =>
    (await readFile(calls, 'utf8').catch(() => '')).split('\n').filter((l) => l !== '');
  return { dir, env, daemonPid, calls: calls_ };
}

/** Running, not a zombie waiting for a parent's wait (proc(5) state Z). */
async function isRunning(pid: number): Promise<boolean> {
  return (await readStartTicks(pid)) !== undefined;
}

/** Starts the run's process; resolves with it once it printed the engine's owner. */
async function startRun(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [CHILD], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const owner = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (data: Buffer) => {
      resolve(data.toString().trim());
    });
    child.on('exit', (code) => {
      reject(new Error(`the run exited ${String(code)} before its engine started`));
    });
  });
  return { child, owner };
}

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline;) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe('the engine watcher', { timeout: 30_000 }, () => {
  it('SIGKILL of the run that started our dockerd: its kind cluster and network deleted, the daemon stopped', async (t) => {
    const { env, daemonPid, calls } = await setUp(t);
    const { child, owner } = await startRun(env);
    assert.equal(owner, 'ours-started');
    const pid = await daemonPid();
    assert.ok(await isRunning(pid));
    child.kill('SIGKILL');
    assert.ok(await waitFor(async () => !(await isRunning(pid)), 5000), 'our dockerd is gone within 5 s');
    const ran = await calls();
    assert.ok(
      ran.includes(`kind delete cluster --name watched --kubeconfig ${env['ENGINE_DIR'] ?? ''}/kubeconfig`),
      ran.join('\n'),
    );
    assert.ok(ran.includes('docker network rm ztunnel-harness-kind'), ran.join('\n'));
  });

  for (const kept of [
    { how: 'started to be kept (kind-engine start)', env: { KEEP_AFTER_EXIT: '1', THEN: 'exit' } },
    { how: 'kept by the run (a kept cluster)', env: { THEN: 'keep' } },
  ])
    it(`a dockerd ${kept.how} outlives the run's process`, async (t) => {
      const { env, daemonPid, calls } = await setUp(t);
      const { child, owner } = await startRun({ ...env, ...kept.env });
      assert.equal(owner, 'ours-started');
      await new Promise((r) => child.once('exit', r));
      const pid = await daemonPid();
      assert.equal(await waitFor(async () => !(await isRunning(pid)), 2500), false, 'still running');
      assert.deepEqual(
        (await calls()).filter((c) => c.startsWith('kind')),
        [],
      );
    });
});
