import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { ErrorCode, isHarnessError } from '../../../../lib/index.ts';
import { ensureDockerEngine, isOurDaemon, stopDaemon } from '../docker-engine.ts';
import { engineLayout } from '../engine-layout.ts';
import { createStepRunner } from '../../../steps/step-runner.ts';

/** Fake docker (no engine answers) and dockerd (`script`), first on PATH; our daemon's layout in a temporary folder. */
async function setUp(t: { after: (fn: () => Promise<void>) => void }, dockerd: string) {
  const dir = await mkdtemp(join(tmpdir(), 'engine-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(
    join(dir, 'docker'),
    '#!/bin/sh\necho "Cannot connect to the Docker daemon" >&2\nexit 1\n',
    { mode: 0o755 },
  );
  await writeFile(join(dir, 'dockerd'), `#!/bin/sh\n${dockerd}\n`, { mode: 0o755 });
  // CI=true: the consent to start our daemon, as CI gives it (lib/host-consent.ts).
  const env = { ...process.env, CI: 'true', PATH: `${dir}:${process.env['PATH'] ?? ''}` };
  const layout = engineLayout(join(dir, 'tools'), dir);
  const runner = createStepRunner({ logDir: join(dir, 'logs'), write: () => undefined });
  return { dir, env, layout, runner };
}

test("no engine answers and ours cannot start: exit 3 naming the engine step, its log and dockerd's last words", async (t) => {
  const { dir, env, layout, runner } = await setUp(t, 'echo "failed to start daemon: boom" >&2; exit 1');
  await assert.rejects(
    runner.step('engine', (step) => ensureDockerEngine(step, { layout, env })),
    (err: unknown) =>
      isHarnessError(err, ErrorCode.ProvisionFailed) &&
      err.exitCode === 3 &&
      err.message.includes('our dockerd exited: failed to start daemon: boom') &&
      err.message.includes(`its log: ${layout.log}`) &&
      err.message.includes(`(the engine step; its log: ${join(dir, 'logs', 'engine.log')})`),
  );
  const config = JSON.parse(await readFile(layout.config, 'utf8')) as Record<string, unknown>;
  assert.deepEqual(config['hosts'], [layout.dockerHost], 'its own socket, never the default one');
});

test('a dockerd of ours that never answers is stopped, not left running', async (t) => {
  const { env, layout, runner, dir } = await setUp(t, 'echo $$ > "${0%/*}/dockerd.pid"; exec sleep 300');
  const started = runner.step('engine', (step) =>
    ensureDockerEngine(step, { layout, env, startTimeoutMs: 1500 }),
  );
  await assert.rejects(
    started,
    (err: unknown) =>
      isHarnessError(err, ErrorCode.ProvisionFailed) && /did not answer within 1.5 s/.test(err.message),
  );
  const pid = Number((await readFile(join(dir, 'dockerd.pid'), 'utf8')).trim());
  assert.ok(
    !existsSync(`/proc/${String(pid)}/stat`) ||
      (await readFile(`/proc/${String(pid)}/stat`, 'utf8')).includes(') Z '),
    'the daemon we started is gone',
  );
});

test('without consent (no CI, no --yes, no terminal) our daemon is not started: exit 2 naming what would change and how to go ahead', async (t) => {
  const { env, layout, runner, dir } = await setUp(t, 'touch "${0%/*}/dockerd.ran"; exec sleep 300');
  const noConsent = { ...env, CI: undefined };
  await assert.rejects(
    runner.step('engine', (step) =>
      ensureDockerEngine(step, { layout, env: noConsent, startTimeoutMs: 1500 }),
    ),
    (err: unknown) =>
      isHarnessError(err, ErrorCode.ToolMissing) &&
      err.exitCode === 2 &&
      err.message.includes('start our Docker daemon') &&
      err.message.includes('npm run kind-engine -- start --yes'),
  );
  assert.equal(existsSync(join(dir, 'dockerd.ran')), false, 'dockerd never ran');
});

test('stop by the pidfile signals only a dockerd running with our config file, never another one given that pid', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'engine-stop-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  // A process the kernel names dockerd (a copy of sh): its command line says which config it runs.
  await copyFile('/bin/sh', join(dir, 'dockerd'));
  await chmod(join(dir, 'dockerd'), 0o755);
  const layout = engineLayout(join(dir, 'tools'), dir);
  await mkdir(dirname(layout.pidfile), { recursive: true });
  const start = (config: string) => {
    const child = spawn(join(dir, 'dockerd'), ['-c', 'sleep 30', 'dockerd', '--config-file', config], {
      stdio: 'ignore',
    });
    t.after(() => {
      child.kill('SIGKILL');
    });
    return child;
  };
  const users = start('/etc/docker/daemon.json');
  const ours = start(layout.config);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(await isOurDaemon(users.pid ?? 0, layout), false);
  assert.equal(await isOurDaemon(ours.pid ?? 0, layout), true);
  // The pidfile names the user's daemon (our pid reused): it is left alone.
  await writeFile(layout.pidfile, String(users.pid));
  await stopDaemon(layout);
  assert.equal(users.exitCode, null, "the user's dockerd still runs");
  assert.equal(users.signalCode, null);
  await writeFile(layout.pidfile, String(ours.pid));
  const exited = once(ours, 'exit');
  await stopDaemon(layout);
  const [, signal] = (await exited) as [number | null, string | null];
  assert.equal(signal, 'SIGTERM');
});
