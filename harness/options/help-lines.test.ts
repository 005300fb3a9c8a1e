import assert from 'node:assert/strict';
import { test } from 'node:test';
import { experimentOptions } from './experiment-options.ts';

// --help is read in a terminal: each option's description is one line, and what explains it (the
// mechanism, where it applies) is its `detail`, which docs/reference.md prints after it.
const HELP_LINE_MAX = 120;

test('every option of the experiment says itself in one line of --help; the detail goes to the reference', () => {
  const options = experimentOptions();
  const long = options
    .filter((o) => o.description.length > HELP_LINE_MAX || o.description.includes('\n'))
    .map((o) => `--${o.key} (${String(o.description.length)}): ${o.description}`);
  assert.deepEqual(long, []);
  // The options whose detail was split off still carry it, for the reference.
  for (const key of ['ztunnel-impl', 'control-plane', 'plant-regression', 'backend'])
    assert.ok((options.find((o) => o.key === key)?.detail ?? '').length > 40, `--${key} has its detail`);
});
