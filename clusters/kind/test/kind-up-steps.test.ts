// The bring-up as a list of named steps (up/steps.ts), run on fake kind/docker and the API server
// double: each runs in the listed order, is timed once (onStep, steps.csv, the output), and a failed
// step stops the list there, named with its log.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { StepTiming } from '../../steps/step-runner.ts';
import { KIND_UP_STEPS } from '../up/steps.ts';
import type { FakeEngineCalls } from './fake-provision.ts';
import { controlPlanePods, putPod, startKindFixture } from './kind-fixtures.ts';

/** The fake provisioning's one step, then up()'s own, then waitForReady's first time. */
const EXPECTED = ['images', 'machine', 'cluster', 'load-images', 'control-plane', 'workload', 'serving'];

describe('kind bring-up steps', () => {
  it('lists provision, machine, cluster, load-images, control-plane in that order', () => {
    assert.deepEqual(
      KIND_UP_STEPS.map((s) => s.name),
      ['provision', 'machine', 'cluster', 'load-images', 'control-plane'],
    );
  });

  it('runs each step in order and records one timing per step: onStep, steps.csv and the output', async (t) => {
    const timings: StepTiming[] = [];
    const said: string[] = [];
    const { api, backend, runDir } = await startKindFixture(t, {
      backend: { onStep: (timing) => timings.push(timing), onProgress: (text) => said.push(text) },
    });
    await backend.up();
    for (const p of controlPlanePods()) putPod(api, p);
    await backend.waitForReady({ timeoutMs: 5000 });
    // A second wait is the run's, not the bring-up's: no more steps.
    await backend.waitForReady({ timeoutMs: 5000 });
    assert.deepEqual(
      timings.map((s) => s.name),
      EXPECTED,
    );
    for (const timing of timings) {
      assert.equal(timing.ok, true, timing.name);
      assert.ok(timing.seconds >= 0, timing.name);
      assert.equal(timing.logPath, join(runDir, 'steps', `${timing.name}.log`));
    }
    const csv = (await readFile(join(runDir, 'steps', 'steps.csv'), 'utf8')).trim().split('\n');
    assert.equal(csv[0], 'step,seconds,ok,log');
    assert.deepEqual(
      csv.slice(1).map((row) => row.split(',')[0]),
      EXPECTED,
    );
    const started = said
      .filter((line) => / started \(log: /.test(line))
      .map((line) => line.split(':')[1]?.trim());
    assert.deepEqual(started, EXPECTED);
    assert.equal(said.filter((line) => /: done in [\d.]+ s\n$/.test(line)).length, EXPECTED.length);
  });

  it('stops at a failed step, names it with its log, and runs none after it', async (t) => {
    const timings: StepTiming[] = [];
    const { backend, runDir, commands } = await startKindFixture(t, {
      env: { FAKE_KIND_LOAD_FAIL: '1', FAKE_KIND_ARCHIVE_FAIL: '1' },
      backend: { onStep: (timing) => timings.push(timing) },
    });
    await assert.rejects(
      () => backend.up(),
      (err: unknown) =>
        err instanceof Error &&
        err.message.includes(`(the load-images step; its log: ${join(runDir, 'steps')}`),
    );
    assert.deepEqual(
      timings.map((s) => `${s.name}:${String(s.ok)}`),
      ['images:true', 'machine:true', 'cluster:true', 'load-images:false'],
    );
    const ran = await commands();
    assert.ok(
      ran.some((c) => c.startsWith('kind delete cluster')),
      'the cluster is ours: deleted',
    );
  });
});

describe("the engine watcher's part in the bring-up", () => {
  it('is told the cluster before `kind create` and that it is gone after `kind delete`; the engine released', async (t) => {
    const engine: FakeEngineCalls = { count: 0 };
    const { backend, runDir } = await startKindFixture(t, { engine });
    await backend.up();
    assert.deepEqual(engine.noted, [
      { kindPath: 'kind', name: 'harness-test', kubeconfigPath: join(runDir, 'kubeconfig') },
    ]);
    await backend.close();
    assert.deepEqual(engine.noted.at(-1), undefined);
    assert.equal(engine.noted.length, 2);
    assert.equal(engine.count, 1);
    assert.equal(engine.kept, undefined);
  });

  it('a kept cluster keeps its engine after the run: kept, not released', async (t) => {
    const engine: FakeEngineCalls = { count: 0 };
    const { backend } = await startKindFixture(t, { engine, backend: { keepCluster: true } });
    await backend.up();
    await backend.close();
    assert.equal(engine.kept, 1);
    assert.equal(engine.count, 0);
    assert.equal(engine.noted?.length, 1, 'the kept cluster stays noted only until the watcher is dismissed');
  });
});
