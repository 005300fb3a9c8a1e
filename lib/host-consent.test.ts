import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isHarnessError } from './errors.ts';
import { consentToHostChange } from './host-consent.ts';
import type { ConsentIo } from './host-consent.ts';

const CHANGE = {
  action: "install Debian's docker.io (apt-get)",
  effects: ['enables a unit for the next boot'],
  rerun: 'npm run tools -- --kind --yes',
};

function io(interactive: boolean, answer = ''): ConsentIo & { said: string[]; asked: string[] } {
  const said: string[] = [];
  const asked: string[] = [];
  return {
    said,
    asked,
    interactive,
    write: (t) => {
      said.push(t);
    },
    ask: (q) => {
      asked.push(q);
      return Promise.resolve(answer);
    },
  };
}

test('under CI=true the change is said, with its effects, and goes ahead without asking', async () => {
  const out = io(false);
  await consentToHostChange(CHANGE, out, { CI: 'true' });
  assert.match(
    out.said.join(''),
    /this host will change: install Debian's docker\.io \(apt-get\)\n {2}- enables a unit/,
  );
  assert.match(out.said.join(''), /going ahead \(CI=true\)/);
  assert.deepEqual(out.asked, []);
});

test('on a terminal the user is asked: y goes ahead, anything else refuses with exit 2', async () => {
  await consentToHostChange(CHANGE, io(true, 'y'), {});
  await consentToHostChange(CHANGE, io(true, ' Yes '), {});
  for (const answer of ['', 'n', 'no thanks'])
    await assert.rejects(
      consentToHostChange(CHANGE, io(true, answer), {}),
      (err: unknown) =>
        isHarnessError(err) &&
        err.exitCode === 2 &&
        err.message.includes('declined') &&
        err.message.includes(CHANGE.rerun),
    );
});

test('with no one to ask and no consent given: refused with exit 2, naming the change and the command that goes ahead', async () => {
  const out = io(false);
  await assert.rejects(
    consentToHostChange(CHANGE, out, { CI: 'false' }),
    (err: unknown) =>
      isHarnessError(err) &&
      err.exitCode === 2 &&
      err.message.includes('no terminal to ask') &&
      err.message.includes('`npm run tools -- --kind --yes`'),
  );
  assert.deepEqual(out.asked, []);
});
