// `suite seeds --backend kind`: each entry runs on kind with --backend kind, and an entry kind cannot
// run says why in its place, in the experiment's own words (the refusal a run would give, exit 2).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolve } from '../../config/test/experiment-fixtures.ts';
import { backendRefusal, DEFAULT_BACKEND } from './entry-availability.ts';
import { entryArgs } from './run-suite.ts';
import { loadSuite } from './suite-file.ts';

const suite = await loadSuite('seeds');

test('suite seeds on kind: its E1, E2 and E3 entries run there; E4 (a sidecar beside its app), E5 (outbound capture) and the timing-model arms say why', async () => {
  const verdicts = suite.entries.map((e) => ({ experiment: e.experiment, why: backendRefusal(e, 'kind') }));
  const runnable = verdicts.filter((v) => v.why === '').map((v) => v.experiment);
  const refused = verdicts.filter((v) => v.why !== '');
  assert.ok(
    runnable.some((x) => x.startsWith('E2')),
    'E2 runs on kind',
  );
  assert.ok(
    runnable.some((x) => x.startsWith('E1')),
    'E1 runs on kind (ztunnel in the pods)',
  );
  assert.ok(
    runnable.some((x) => x.startsWith('E3')),
    'E3 runs on kind (its long-lived client a pod: apps/long-lived-client)',
  );
  assert.ok(!runnable.some((x) => x.startsWith('E4') || x.startsWith('E5')), runnable.join(' '));
  for (const v of refused)
    assert.match(v.why, /^not available on kind: Expected .* to be something --backend kind can run/);
  assert.ok(refused.some((v) => v.experiment.startsWith('E5') && /--mesh-client/.test(v.why)));
  assert.ok(refused.some((v) => v.experiment.startsWith('E2') && /--timing/.test(v.why)));
  // An entry kind can run gets --backend kind; on the default backend nothing is added.
  const e2 = suite.entries.find((e) => backendRefusal(e, 'kind') === '');
  assert.ok(e2);
  assert.equal((await resolve(entryArgs(e2, 1, 'kind'))).backend, 'kind');
  assert.deepEqual(entryArgs(e2, 1, DEFAULT_BACKEND), entryArgs(e2, 1));
  // Every entry of the seeds runs on the default backend (the suite file is checked as runs are) but
  // those with Istio's control plane, kind's option, which say so in their place.
  const onDefault = suite.entries
    .map((e) => ({ configuration: e.configuration, why: backendRefusal(e, DEFAULT_BACKEND) }))
    .filter((v) => v.why !== '');
  assert.ok(onDefault.length > 0);
  for (const v of onDefault) {
    assert.match(v.configuration, /Istio's control plane.*\(kind\)/);
    assert.match(
      v.why,
      /--control-plane to be an option of --backend local, got "istio"; it is --backend kind's/,
    );
  }
  // On kind they run, and the debounce arm with them (istiod's PILOT_DEBOUNCE_AFTER there).
  const istio = suite.entries.filter((e) => /Istio's control plane/.test(e.configuration));
  assert.deepEqual(
    istio.map((e) => backendRefusal(e, 'kind')),
    istio.map(() => ''),
  );
  const debounce = suite.entries.find((e) => e.configuration === 'ambient, debounce 10 ms');
  assert.ok(debounce);
  assert.equal(backendRefusal(debounce, 'kind'), '');
});
