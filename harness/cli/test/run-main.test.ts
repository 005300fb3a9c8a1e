// The CLI's exit contract as a real process: a stop that is bounded after SIGTERM, and an exit once
// main has settled, whatever still holds the event loop.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../paths.ts';

const FIXTURE = join(PROJECT_ROOT, 'harness', 'cli', 'test', 'main-fixture.ts');

function start(mode: string) {
  const child = execa(process.execPath, [FIXTURE, mode], { reject: false, stdin: 'ignore', timeout: 10_000 });
  const started = new Promise<void>((resolve) => {
    child.stderr.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('main started')) resolve();
    });
  });
  return { child, started };
}

test('SIGTERM ends a main stuck in a call that ignores the signal (recursive mkdir under /proc)', async () => {
  const { child, started } = start('stuck');
  await started;
  const signalledMs = performance.now();
  child.kill('SIGTERM');
  const result = await child;
  const tookMs = performance.now() - signalledMs;
  assert.equal(result.timedOut, false, 'one SIGTERM was enough');
  assert.equal(result.exitCode, 130, result.stderr);
  assert.match(result.stderr, /SIGTERM: stopping/);
  assert.match(result.stderr, /did not stop within 0\.3 s of SIGTERM: held by .*FSReq.*; exiting/);
  assert.ok(tookMs < 5000, `exited ${tookMs.toFixed(0)} ms after SIGTERM`);
});

test('a main that honours the signal ends with its own code, without the forced exit', async () => {
  const { child, started } = start('honours');
  await started;
  child.kill('SIGTERM');
  const result = await child;
  assert.equal(result.exitCode, 130);
  assert.doesNotMatch(result.stderr, /did not stop|still held/);
});

test('once main has settled the process exits with its code, naming what was left holding it', async () => {
  const result = await start('leaks').child;
  assert.equal(result.timedOut, false);
  assert.equal(result.exitCode, 3);
  assert.match(
    result.stderr,
    /the command finished but the process was still held by .*Timeout.* after 0\.3 s: exiting/,
  );
});

test('a main that never settles, with nothing left to wait for, is a failure, not a pass', async () => {
  const result = await start('forgotten').child;
  assert.equal(result.exitCode, 3);
  assert.match(result.stderr, /internal error: the command ended before its main finished/);
});
