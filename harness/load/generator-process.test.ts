import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, isHarnessError } from '../../lib/index.ts';
import { commandOf, generatorFailure } from './generator-process.ts';

test("a generator's end: 0 is none, Ctrl-C aborts, an exit code or a signal is a load failure saying where to look", () => {
  assert.equal(generatorFailure('k6', { isCanceled: false, exitCode: 0 }, 'k6.log'), undefined);
  const aborted = generatorFailure('fortio', { isCanceled: true, exitCode: 143 }, 'fortio.log');
  assert.ok(isHarnessError(aborted, ErrorCode.Aborted));
  const code = generatorFailure('fortio', { isCanceled: false, exitCode: 1 }, 'fortio.log');
  assert.ok(isHarnessError(code, ErrorCode.LoadFailed) && code.exitCode === 3);
  assert.equal(code.message, 'fortio exited with code 1; see fortio.log');
  const killed = generatorFailure('k6', { isCanceled: false, signal: 'SIGKILL' }, 'k6.log');
  assert.equal(killed?.message, 'k6 was killed by SIGKILL; see k6.log');
});

test('the command line as started: wrapped (a cpu cgroup) or as it is', () => {
  assert.deepEqual(commandOf(['/bin/fortio', 'load'], {}), ['/bin/fortio', ['load']]);
  assert.deepEqual(
    commandOf(['/bin/fortio', 'load'], { wrapCommand: (argv) => ['cgexec', '-g', 'cpu:gen', ...argv] }),
    ['cgexec', ['-g', 'cpu:gen', '/bin/fortio', 'load']],
  );
});
