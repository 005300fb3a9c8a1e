import assert from 'node:assert/strict';
import { test } from 'node:test';
import { placeLabels } from './event-lane.ts';
import type { LaneLabel, PlacedLabel } from './event-lane.ts';

const overlaps = (a: PlacedLabel, b: PlacedLabel): boolean =>
  a.row === b.row && a.fromPx < b.toPx && b.fromPx < a.toPx;

const label = (t_s: number, text: string, priority = 0): LaneLabel => ({ t_s, label: text, priority });

test('labels that would overprint go on rows of their own', () => {
  // Three ztunnels SIGTERMed 100 ms apart on a 10 s axis: 7 px apart, each label ~130 px long.
  const labels = [0, 1, 2].map((i) => label(5 + i / 10, `sigterm ztunnel-${String(i)}abcd`));
  const placed = placeLabels(labels, { domain: [0, 10], widthPx: 680, maxRows: 4 });
  assert.equal(placed.length, 3);
  assert.deepEqual(placed.map((p) => p.row).sort(), [0, 1, 2]);
  for (const a of placed) for (const b of placed) if (a !== b) assert.ok(!overlaps(a, b));
});

test('labels far apart share a row', () => {
  const placed = placeLabels([label(1, 'sigterm a'), label(9, 'sigterm b')], {
    domain: [0, 10],
    widthPx: 680,
    maxRows: 4,
  });
  assert.deepEqual(
    placed.map((p) => p.row),
    [0, 0],
  );
});

test('a label that would run off the right end sits left of its rule', () => {
  const placed = placeLabels([label(9.9, 'drain-deadline ztunnel-abcde')], {
    domain: [0, 10],
    widthPx: 680,
    maxRows: 2,
  });
  const [only] = placed;
  assert.equal(placed.length, 1);
  assert.ok(only);
  assert.equal(only.align, 'right');
  assert.ok(only.toPx <= 680, `ends at ${String(only.toPx)} px`);
});

test('when rows run out, the least important labels are left out, never overprinted', () => {
  const crowd = Array.from({ length: 10 }, (_, i) =>
    label(5 + i / 1000, `container-exited pod-${String(i)}`, 5),
  );
  const fault = { ...label(5.005, 'restart ztunnel', -1), isFault: true };
  const placed = placeLabels([...crowd, fault], { domain: [0, 10], widthPx: 680, maxRows: 3 });
  assert.equal(placed.length, 3);
  assert.ok(
    placed.some((p) => p.isFault === true),
    'the fault keeps its name',
  );
  assert.ok(placed.every((p) => p.row < 3));
});
