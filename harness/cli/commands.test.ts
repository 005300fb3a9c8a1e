import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isHarnessError } from '../../lib/index.ts';
import { splitCommand } from './commands.ts';

test('the first word is the command; an option first means run', () => {
  assert.deepEqual(splitCommand(['--grace', '120']), { command: 'run', argv: ['--grace', '120'] });
  assert.deepEqual(splitCommand([]), { command: 'run', argv: [] });
  assert.deepEqual(splitCommand(['run', '-c', '5']), { command: 'run', argv: ['-c', '5'] });
  assert.deepEqual(splitCommand(['calibrate', '--qps', '9']), { command: 'calibrate', argv: ['--qps', '9'] });
  assert.deepEqual(splitCommand(['suite', 'seeds', '--repeat', '2']), {
    command: 'suite',
    argv: ['--suite', 'seeds', '--repeat', '2'],
  });
});

test('the command lines from before the commands still run, with a note naming the new form', () => {
  assert.deepEqual(splitCommand(['--suite', 'seeds']), { command: 'suite', argv: ['--suite', 'seeds'] });
  const calibrate = splitCommand(['--qps', '9', '--scenario', 'calibrate']);
  assert.deepEqual([calibrate.command, calibrate.argv], ['calibrate', ['--qps', '9']]);
  assert.match(calibrate.note ?? '', /--scenario calibrate is now `npm run experiment -- calibrate`/);
  const e5 = splitCommand(['--scenario=drain-strategies', '--repeat', '3']);
  assert.deepEqual([e5.command, e5.argv], ['suite', ['--suite', 'seeds', '--only', 'E5', '--repeat', '3']]);
  assert.match(e5.note ?? '', /suite seeds --only E5/);
  // A real scenario is left to the option table.
  assert.deepEqual(splitCommand(['--scenario', 'long-lived']).command, 'run');
});

test('a word that is no command, or suite without its name, is bad input', () => {
  for (const argv of [['rnu'], ['suite'], ['suite', '--repeat', '2']])
    assert.throws(
      () => splitCommand(argv),
      (err) => isHarnessError(err) && err.exitCode === 2,
      argv.join(' '),
    );
});

test('a --scenario value that names an Object property is an ordinary value, not a former command', () => {
  for (const value of ['valueOf', 'toString', '__proto__', 'constructor'])
    assert.deepEqual(
      splitCommand(['--scenario', value]),
      { command: 'run', argv: ['--scenario', value] },
      value,
    );
});
