import assert from 'node:assert/strict';
import { test } from 'node:test';
import { faultStartOf } from './fault-start.ts';

const started = (t_s: string, object: string, detail: string) => ({
  t_s,
  kind: 'rollout-started',
  object,
  detail,
});

const CASES = [
  {
    name: 'a rollout restart event',
    events: [started('5.010', 'daemonset/istio-system/ztunnel', 'rollout restart')],
    row: {},
    want: { t_s: 5.01, label: 'restart ztunnel' },
  },
  {
    name: 'a scale event',
    events: [started('3.000', 'deployment/default/httpbin', 'scale to 3')],
    row: {},
    want: { t_s: 3, label: 'scale httpbin to 3' },
  },
  {
    name: 'the earliest of two',
    events: [
      started('9.000', 'deployment/default/b', 'rollout restart'),
      started('2.000', 'deployment/default/a', 'rollout restart'),
    ],
    row: {},
    want: { t_s: 2, label: 'restart a' },
  },
  {
    name: 'no event: rollout_started_s',
    events: [],
    row: { rollout_started_s: '4.200', restart_at_s: 4 },
    want: { t_s: 4.2, label: 'fault (rollout started)' },
  },
  {
    name: 'no event: --restart-at',
    events: [],
    row: { rollout_started_s: '', restart_at_s: 4 },
    want: { t_s: 4, label: 'fault (--restart-at)' },
  },
  { name: 'no fault', events: [], row: { rollout_started_s: '', restart_at_s: 'none' }, want: undefined },
];

for (const c of CASES)
  test(`the fault's start from ${c.name}`, () => {
    assert.deepEqual(faultStartOf(c.events, c.row), c.want);
  });
