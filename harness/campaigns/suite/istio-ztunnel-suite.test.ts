// The ours-beside-istio/ztunnel suite (suites/istio-ztunnel.yaml): each pair of rows differs in the
// ztunnel only, both in pod namespaces; the binary's rows say why where it is not given.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolve } from '../../config/test/experiment-fixtures.ts';
import { entryUnavailable } from './entry-availability.ts';
import { entryArgs } from './run-suite.ts';
import { loadSuite } from './suite-file.ts';

const suite = await loadSuite('istio-ztunnel');

test('suites/istio-ztunnel.yaml: E1, E2, E3, each with ours and istio/ztunnel, all in pod namespaces', async () => {
  const ran = await Promise.all(
    suite.entries.map(async (e) => {
      const p = await resolve(entryArgs(e, 1));
      return `${p.scenario} ${p.podNetwork} ${p.ztunnelImpl}`;
    }),
  );
  assert.deepEqual(ran, [
    'ztunnel-upgrade netns ours',
    'ztunnel-upgrade netns istio-shared',
    'workload-rollout netns ours',
    'workload-rollout netns istio-shared',
    'long-lived netns ours',
    'long-lived netns istio-shared',
  ]);
  // What a row runs apart from its ztunnel (istio-shared implies the namespaces ours asks for).
  const apartFromZtunnel = (args: readonly string[]): string[] =>
    args.filter((a, i) => a !== '--netns' && a !== '--ztunnel-impl' && args[i - 1] !== '--ztunnel-impl');
  for (const [i, e] of suite.entries.entries()) {
    const ours = suite.entries[i - 1];
    if (i % 2 === 1 && ours)
      assert.deepEqual(
        apartFromZtunnel(e.args),
        apartFromZtunnel(ours.args),
        `${e.configuration}: only the ztunnel differs from ${ours.configuration}`,
      );
  }
});

test("the binary's rows name what they need where it is not given", () => {
  for (const e of suite.entries.filter((x) => x.args.includes('istio-shared')))
    assert.match(entryUnavailable(e, {}, 0), /not available: istio\/ztunnel needs ZTUNNEL_BINARY/);
});

test("shared mode with our CA needs the binary only; dedicated mode's FAKE_CA needs its test root too", async () => {
  const binaryOnly = { ZTUNNEL_BINARY: process.execPath };
  for (const e of suite.entries.filter((x) => x.args.includes('istio-shared')))
    assert.equal(entryUnavailable(e, binaryOnly, 0), '', e.configuration);
  const dedicated = (await loadSuite('pod-networks')).entries.find((x) => x.args.includes('istio'));
  assert.ok(dedicated);
  assert.match(entryUnavailable(dedicated, binaryOnly, 0), /needs ZTUNNEL_BINARY .* and ZTUNNEL_TEST_ROOT/);
});
