import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ErrorCode, HarnessError, isHarnessError } from '../../lib/index.ts';
import { createStepRunner } from './step-runner.ts';

async function runnerIn(t: { after: (fn: () => Promise<void>) => void }) {
  const dir = await mkdtemp(join(tmpdir(), 'steps-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const said: string[] = [];
  let clock = 0;
  const runner = createStepRunner({ logDir: dir, write: (x) => said.push(x), now: () => (clock += 1500) });
  return { dir, said, runner };
}

test('each step is timed in the output and in steps.csv; its commands go to its own log', async (t) => {
  const { dir, said, runner } = await runnerIn(t);
  const out = await runner.step('engine', (step) => step.run('sh', ['-c', 'echo to-the-log; echo err >&2']));
  assert.equal(out, '', 'stdout goes to the log unless captured');
  const log = await readFile(join(dir, 'engine.log'), 'utf8');
  assert.match(log, /^\$ sh -c echo to-the-log; echo err >&2\nto-the-log\nerr\n/);
  assert.deepEqual(said, [`engine: started (log: ${join(dir, 'engine.log')})\n`, 'engine: done in 1.5 s\n']);
  assert.equal(
    await readFile(join(dir, 'steps.csv'), 'utf8'),
    `step,seconds,ok,log\nengine,1.5,true,${join(dir, 'engine.log')}\n`,
  );
});

test('a failed command fails its step with exit 3, naming the step and its log; the output stays in the log', async (t) => {
  const { dir, runner } = await runnerIn(t);
  await assert.rejects(
    runner.step('node-image', (step) => step.run('sh', ['-c', 'echo half-built; exit 7'])),
    (err: unknown) =>
      isHarnessError(err, ErrorCode.ProvisionFailed) &&
      err.exitCode === 3 &&
      err.message.includes('exited 7') &&
      err.message.includes(`the node-image step; its log: ${join(dir, 'node-image.log')}`),
  );
  assert.match(await readFile(join(dir, 'node-image.log'), 'utf8'), /half-built\nFAILED: /);
  assert.match(await readFile(join(dir, 'steps.csv'), 'utf8'), /^node-image,[\d.]+,false,/m);
});

test("a step's error keeps its code: a missing tool stays exit 2", async (t) => {
  const { runner } = await runnerIn(t);
  await assert.rejects(
    runner.step('engine', () => Promise.reject(new HarnessError(ErrorCode.ToolMissing, 'no dockerd'))),
    (err: unknown) => isHarnessError(err, ErrorCode.ToolMissing) && err.exitCode === 2,
  );
});
