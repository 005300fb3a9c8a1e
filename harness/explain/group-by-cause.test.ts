import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LifecycleEvent } from '../../clusters/events.ts';
import type { ParsedAccessLog } from '../../mesh/xds/access-log.ts';
import { explainBurst } from './explain-bursts.ts';
import { groupFailuresByCause, isKeepAliveRace } from './group-by-cause.ts';

const ev = (
  atMs: number,
  kind: LifecycleEvent['kind'],
  object: string,
  node: string,
  detail?: string,
): LifecycleEvent => ({
  atMs,
  kind,
  source: 'kubelet',
  object,
  node,
  ...(detail === undefined ? {} : { detail }),
});
const fail = (startMs: number, upstream: string) => {
  const entry: ParsedAccessLog = {
    startWallMs: startMs,
    status: 503,
    flags: ['UF'],
    details: '',
    durationMs: 1,
    upstream,
    attempts: 1,
  };
  return { startMs, entry };
};

const events: LifecycleEvent[] = [
  ev(0, 'pod-created', 'default/httpbin-a', 'node-1', '127.9.2.1 (app 127.9.3.1)'),
  ev(0, 'pod-created', 'default/httpbin-b', 'node-2', '127.9.2.2 (app 127.9.3.2)'),
  ev(0, 'pod-created', 'default/httpbin-c', 'node-1', '127.9.2.3 (app 127.9.3.3)'),
  ev(0, 'pod-created', 'istio-system/ztunnel-1', 'node-1', '127.9.1.1 (app 127.9.1.1)'),
  ev(10_000, 'pod-deleting', 'default/httpbin-a', 'node-1'),
  ev(10_010, 'sigterm', 'default/httpbin-a', 'node-1'),
  ev(20_000, 'pod-deleting', 'default/httpbin-b', 'node-2'),
  ev(
    40_000,
    'drain-deadline',
    'istio-system/ztunnel-1',
    'node-1',
    'drain deadline reached connections=9 in_flight=1',
  ),
];

test('one burst per terminating pod, across quiet gaps; deadline failures go to the ztunnel on their pod node', () => {
  const bursts = groupFailuresByCause(
    [
      fail(10_100, '127.9.2.1:8080'),
      fail(10_450, '127.9.2.1:8080'), // 350 ms later, nothing in between: still the same pod
      fail(20_050, '127.9.2.2:8080'),
      fail(39_990, '127.9.2.3:8080'),
      fail(40_030, '127.9.2.3:8080'),
      fail(50_000, ''), // no healthy upstream: no upstream to blame
    ],
    events,
  );
  assert.deepEqual(
    bursts.map((b) => [b.cause?.kind ?? 'none', b.cause?.object ?? '', b.failures, b.durationMs]),
    [
      ['pod-deleting', 'default/httpbin-a', 2, 350],
      ['pod-deleting', 'default/httpbin-b', 1, 0],
      ['drain-deadline', 'istio-system/ztunnel-1', 2, 40],
      ['none', '', 1, 0],
    ],
  );
});

test("kind: a pod's termination starts at the earlier of the watch's deletion and the app's SIGTERM line, and a failure counts from its end", () => {
  // The last stop's CI run (issue 58): a CONNECT refused at the gateway started 19 ms before the
  // watch saw the pod's deletion; go-httpbin had already logged its SIGTERM. Times as that run had them.
  const kind: LifecycleEvent[] = [
    ev(0, 'pod-ready', 'default/httpbin-x', 'worker', '10.244.1.7 ready'),
    { ...ev(20_215, 'sigterm', 'default/httpbin-x', 'worker'), source: 'container-log' },
    { ...ev(20_246, 'pod-deleting', 'default/httpbin-x', 'worker'), source: 'api-server' },
  ];
  const refused = (startMs: number, durationMs: number) => {
    const f = fail(startMs, '10.244.1.7:8080');
    return { ...f, entry: { ...f.entry, durationMs } };
  };
  const [burst] = groupFailuresByCause([refused(20_209, 8), refused(20_300, 3)], kind);
  assert.ok(burst);
  assert.deepEqual([burst.cause?.kind, burst.cause?.atMs, burst.failures], ['sigterm', 20_215, 2]);
  const explained = explainBurst(burst, kind, burst.failuresList);
  assert.equal(explained.mechanism, 'pod-termination');
  assert.match(
    explained.text,
    /between -0\.006 and \+0\.085 s from its sigterm; sigterm \+0\.000 s, pod-deleting \+0\.031 s/,
  );
  // A request that ended before any sign of the pod going away is not blamed on it.
  assert.equal(groupFailuresByCause([refused(20_200, 10)], kind)[0]?.cause, undefined);
  // Without the app's line (another image), the watch's deletion is the start, as before.
  const watchOnly = kind.filter((e) => e.kind !== 'sigterm');
  assert.equal(groupFailuresByCause([refused(20_209, 8)], watchOnly)[0]?.cause, undefined);
  assert.equal(groupFailuresByCause([refused(20_240, 8)], watchOnly)[0]?.cause?.kind, 'pod-deleting');
});

test('a 503 UC on a connection idle about as long as httpbin keeps one, with no event, is the keep-alive race', () => {
  const uc = (startMs: number, idleMs: number) => {
    const f = fail(startMs, '127.9.2.3:8080');
    return { ...f, entry: { ...f.entry, flags: ['UC'], connectionId: 7, connectionIdleMs: idleMs } };
  };
  const failures = [uc(25_000, 4990), uc(26_000, 120), uc(27_000, 5003)];
  const bursts = groupFailuresByCause(failures, events);
  assert.deepEqual(
    bursts.map((b) => [b.cause?.kind ?? 'none', b.failures]),
    [
      ['none', 2], // the two idle ~5 s: one burst, the keep-alive race
      ['none', 1], // idle 120 ms: nothing explains it
    ],
  );
  const [race, other] = bursts;
  assert.ok(race && other);
  const explained = explainBurst(race, events, race.failuresList);
  assert.equal(explained.mechanism, 'keep-alive-race');
  assert.match(explained.text, /idle 4\.990-5\.003 s/);
  assert.equal(explainBurst(other, events, other.failuresList).mechanism, 'unattributed');
  // The same idle connection failing at an old ztunnel's drain deadline is the deadline's.
  const atDeadline = groupFailuresByCause([uc(40_010, 5000)], events);
  assert.equal(atDeadline[0]?.cause?.kind, 'drain-deadline');
});

test('the keep-alive race needs an idle time: where the log cannot derive one it is unknown, not 0', () => {
  const { entry } = fail(0, '127.9.2.3:8080');
  const uc = { ...entry, flags: ['UC'] };
  assert.deepEqual(
    [
      isKeepAliveRace(uc),
      isKeepAliveRace({ ...uc, connectionIdleMs: 4000 }),
      isKeepAliveRace({ ...uc, connectionIdleMs: 3999 }),
    ],
    [false, true, false],
  );
  assert.equal(isKeepAliveRace({ ...entry, connectionIdleMs: 5000 }), false, 'a 503 UF is no race');
});

test("a real cluster's pod is found by the IP its Ready event carries, where no node agent of ours logs enrolments (Istio's istio-cni)", () => {
  const cluster: LifecycleEvent[] = [
    ev(0, 'pod-created', 'run/httpbin-a', 'worker2', 'node worker2'),
    ev(900, 'pod-ready', 'run/httpbin-a', 'worker2', '10.244.2.16 ready'),
    ev(10_000, 'pod-deleting', 'run/httpbin-a', 'worker2'),
  ];
  const [burst] = groupFailuresByCause([fail(10_100, '10.244.2.16:8080')], cluster);
  assert.equal(burst?.cause?.kind, 'pod-deleting');
  assert.equal(burst.cause.object, 'run/httpbin-a');
  // Without the IP (a Ready event from before this change, or a pod with none) it stays unattributed.
  const withoutIp = cluster.map((e) => (e.kind === 'pod-ready' ? { ...e, detail: 'ready' } : e));
  assert.equal(groupFailuresByCause([fail(10_100, '10.244.2.16:8080')], withoutIp)[0]?.cause, undefined);
});
