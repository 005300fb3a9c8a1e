// The version matrix (suites/versions.yaml): per experiment, ours and each release's binary in one
// layout, nothing else apart; a release whose binary is absent is not run and says why.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { test } from 'node:test';
import { resolve } from '../../config/test/experiment-fixtures.ts';
import { entryUnavailable } from './entry-availability.ts';
import { entryArgs, suitePlan } from './run-suite.ts';
import { loadSuite } from './suite-file.ts';

const suite = await loadSuite('versions');
const RELEASES = ['1.28.1', '1.28.10', '1.29.6', '1.30.3'];

test('suites/versions.yaml: E1, E2, E3, each with ours and every release, all in pod namespaces', async () => {
  const ran = await Promise.all(
    suite.entries.map(async (e) => {
      const p = await resolve(entryArgs(e, 1));
      return `${p.scenario} ${p.podNetwork} ${p.ztunnelImpl} ${p.ztunnelBinary}`;
    }),
  );
  const binary = (tag: string) => resolvePath(`../shared/ztunnel/${tag}/ztunnel`);
  assert.deepEqual(
    ran,
    ['ztunnel-upgrade', 'workload-rollout', 'long-lived'].flatMap((scenario) => [
      `${scenario} netns ours `,
      ...RELEASES.map((tag) => `${scenario} netns istio-shared ${binary(tag)}`),
    ]),
  );
  // Within an experiment the rows differ in the ztunnel only.
  const withValue = ['--ztunnel-impl', '--ztunnel-binary'];
  const apartFromZtunnel = (args: readonly string[]): string =>
    args
      .filter((a, i) => a !== '--netns' && !withValue.includes(a) && !withValue.includes(args[i - 1] ?? ''))
      .join(' ');
  for (const e of suite.entries) {
    const ours = suite.entries.find((o) => o.experiment === e.experiment);
    assert.ok(ours);
    assert.equal(apartFromZtunnel(e.args), apartFromZtunnel(ours.args), e.configuration);
  }
});

test("a release's entry runs its own binary, or says it is absent, whatever ZTUNNEL_BINARY says", () => {
  for (const e of suite.entries.filter((x) => x.flags['ztunnelImpl'] === 'istio-shared')) {
    const path = String(e.flags['ztunnelBinary']);
    const why = entryUnavailable(e, { ZTUNNEL_BINARY: process.execPath }, 0);
    if (existsSync(path)) assert.equal(why, '', e.configuration);
    else
      assert.match(
        why,
        /--ztunnel-binary \.\.\/shared\/ztunnel\/.*\/ztunnel does not exist/,
        e.configuration,
      );
    // A missing binary is said, not replaced by the variable's.
    const moved = { ...e, flags: { ...e.flags, ztunnelBinary: '/no/such/ztunnel' } };
    assert.match(entryUnavailable(moved, { ZTUNNEL_BINARY: process.execPath }, 0), /does not exist/);
  }
});

test('an interleaved suite runs in rounds, one run of each entry a round; the others entry by entry', () => {
  assert.equal(suite.interleave, true);
  const order = (plan: ReturnType<typeof suitePlan>) =>
    plan.map((s) => `${String(s.entry)}x${String(s.repeats)}`);
  assert.deepEqual(order(suitePlan([2, 3, 1], true)), ['0x1', '1x1', '2x1', '0x1', '1x1', '1x1']);
  assert.deepEqual(
    suitePlan([2, 3, 1], true).map((s) => s.round),
    [1, 1, 1, 2, 2, 3],
  );
  assert.deepEqual(order(suitePlan([2, 3, 1], false)), ['0x2', '1x3', '2x1']);
});
