import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RequestRecord } from '../load/index.ts';
import { findBursts } from './bursts.ts';
import { classifyRecord } from './classify.ts';
import { createTimeline } from './timeline.ts';

const rec = (patch: Partial<RequestRecord>): RequestRecord => ({
  startWallMs: 0,
  durationMs: 1,
  status: 0,
  errorCode: 0,
  flag: '',
  error: '',
  ...patch,
});
const fortioOk = (s: number): boolean => s === 418 || (s >= 200 && s < 300);

describe('tally', () => {
  it('classifies by status, gateway flag and k6 error code', () => {
    const cases: [Partial<RequestRecord>, string][] = [
      [{ status: 418, errorCode: 1418 }, 'ok'],
      [{ status: 200 }, 'ok'],
      [{ status: 503, errorCode: 1503, flag: 'UF' }, 'http_503_uf'],
      [{ status: 503, errorCode: 1503, flag: 'UC,URX' }, 'http_503_urx'],
      [{ status: 503, errorCode: 1503, flag: 'UH' }, 'http_503_uh'],
      [{ status: 503, errorCode: 1503 }, 'http_503'],
      [{ status: 502, errorCode: 1502 }, 'other_5xx'],
      [{ status: 404, errorCode: 1404 }, 'other'],
      [{ errorCode: 1212, error: 'dial: connection refused' }, 'refused'],
      [{ errorCode: 1220, error: 'read: connection reset by peer' }, 'reset'],
      [{ errorCode: 1000, error: 'unexpected EOF' }, 'eof'],
      [{ errorCode: 1050, error: 'request timeout' }, 'timeout'],
      [{ errorCode: 1211 }, 'timeout'],
      [{ errorCode: 1630 }, 'h2'],
      [{ errorCode: 1000, error: 'something else' }, 'other'],
    ];
    for (const [patch, expected] of cases)
      assert.equal(classifyRecord(rec(patch), fortioOk), expected, JSON.stringify(patch));
  });

  it('buckets by start time, fills empty buckets, and attributes bursts to the event before them', () => {
    const timeline = createTimeline({ bucketMs: 100, originMs: 1000 });
    for (const [t, c] of [
      [1005, 'ok'],
      [1150, 'ok'],
      [1420, 'http_503_uf'],
      [1480, 'http_503_uf'],
      [1510, 'reset'],
      [1750, 'ok'],
      [1950, 'refused'],
    ] as const)
      timeline.add(t, c);
    const buckets = timeline.buckets();
    assert.equal(buckets.length, 10);
    assert.equal(buckets[3]?.counts.ok, 0);
    assert.deepEqual(timeline.totals().http_503_uf, 2);
    const bursts = findBursts(buckets, 100, [
      { atMs: 1300, kind: 'sigterm', object: 'default/httpbin-a' },
      { atMs: 1900, kind: 'pod-removed', object: 'default/httpbin-a' },
    ]);
    assert.deepEqual(bursts, [
      {
        startMs: 1400,
        durationMs: 200,
        failures: 3,
        cause: { atMs: 1300, kind: 'sigterm', object: 'default/httpbin-a' },
      },
      {
        startMs: 1900,
        durationMs: 100,
        failures: 1,
        cause: { atMs: 1900, kind: 'pod-removed', object: 'default/httpbin-a' },
      },
    ]);
    // A ztunnel drain deadline inside a burst is its cause, though the cut requests started before it.
    const atDeadline = findBursts(buckets, 100, [
      { atMs: 1300, kind: 'sigterm', object: 'istio-system/ztunnel-a' },
      { atMs: 1560, kind: 'drain-deadline', object: 'istio-system/ztunnel-a' },
    ]);
    assert.deepEqual(atDeadline[0]?.cause, {
      atMs: 1560,
      kind: 'drain-deadline',
      object: 'istio-system/ztunnel-a',
    });
  });
});
