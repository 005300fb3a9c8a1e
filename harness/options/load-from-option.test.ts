// --load-from through the CLI's own parsing: kind's default is the cluster, the local backend's the
// host, and `cluster` on the local backend is refused (exit 2) before anything is written.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isHarnessError } from '../../lib/index.ts';
import { parseExperimentArgs } from '../cli/experiment-args.ts';
import { exitCodeOf } from '../cli/run-main.ts';

async function paramsOf(dir: string, args: string[]) {
  const parsed = await parseExperimentArgs(['--results-dir', dir, '--scenario', 'workload-rollout', ...args]);
  return parsed.params;
}

test('--load-from: cluster by default on kind, host on the local backend, as given otherwise', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'load-from-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  assert.equal((await paramsOf(dir, ['--backend', 'kind', '--generator', 'fortio']))?.loadFrom, 'cluster');
  assert.equal((await paramsOf(dir, ['--backend', 'local', '--generator', 'fortio']))?.loadFrom, 'host');
  assert.equal(
    (await paramsOf(dir, ['--backend', 'kind', '--generator', 'fortio', '--load-from', 'host']))?.loadFrom,
    'host',
  );
  // k6 is never run in the pod: its default is the host.
  assert.equal((await paramsOf(dir, ['--backend', 'kind', '--generator', 'k6']))?.loadFrom, 'host');
});

test('--load-from cluster on the local backend is bad input (exit 2) naming the flag, the value and what to do', async (t) => {
  const dir = join(await mkdtemp(join(tmpdir(), 'load-from-')), 'results');
  t.after(() => rm(join(dir, '..'), { recursive: true, force: true }));
  const err = await paramsOf(dir, ['--backend', 'local', '--load-from', 'cluster']).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(isHarnessError(err), String(err));
  assert.equal(exitCodeOf(err), 2);
  assert.match(err.message, /--load-from/);
  assert.match(err.message, /cluster/);
  assert.match(err.message, /--load-from host/);
  assert.match(err.message, /--backend kind/);
  assert.deepEqual(await readdir(join(dir, '..')), [], 'nothing written');
});

test('--load-from cluster with --generator k6 is bad input: the pod runs fortio', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'load-from-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const err = await paramsOf(dir, ['--backend', 'kind', '--generator', 'k6', '--load-from', 'cluster']).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(isHarnessError(err), String(err));
  assert.equal(exitCodeOf(err), 2);
  assert.match(err.message, /--generator fortio/);
});

test('--load-from refuses a value other than cluster or host', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'load-from-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await assert.rejects(paramsOf(dir, ['--backend', 'kind', '--load-from', 'pod']), /--load-from/);
});
