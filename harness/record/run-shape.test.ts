// The shapes CI expects of a run, read from run folders written as the harness writes them.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RunRow } from './compare/read-runs.ts';
import { checkShape } from './run-shape.ts';

const run = (failed: number, verdict = failed ? 'fail' : 'pass'): RunRow => ({
  line: 2,
  values: { run_id: 'r1', verdict },
  counts: {
    requests: 1000,
    ok: 1000 - failed,
    http_503: failed,
    reset: 0,
    refused: 0,
    timeout: 0,
    eof: 0,
    other_5xx: 0,
    other: 0,
  },
  latency: {},
});

const EVENTS =
  't_s,wall,kind,source,object,node,detail\n7.9,2026-11-29T11:05:54Z,pod-deleting,api-server,default/httpbin-a,,\n';
const BURSTS_HEAD = 'start_s,duration_ms,failures,cause_kind,cause_object,cause_t_s,mechanism\n';
const GATEWAY_HEAD = 'failures,status,flags,meaning,details,tunnel_reason\n';

function folder(t: { after(fn: () => void): void }, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'run-shape-'));
  t.after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

test('pod-termination: every failure in a burst at a terminating pod; another mechanism or a NACK named', async (t) => {
  const at = folder(t, {
    'events.csv': EVENTS,
    'bursts.csv': `${BURSTS_HEAD}7.9,80,3,pod-deleting,default/httpbin-a,7.9,pod-termination\n9.9,0,2,pod-deleting,default/httpbin-b,9.8,pod-termination\n`,
  });
  assert.deepEqual(await checkShape('pod-termination', run(5), at), []);
  assert.deepEqual(
    await checkShape(
      'pod-termination',
      run(0),
      folder(t, { 'events.csv': EVENTS, 'bursts.csv': BURSTS_HEAD }),
    ),
    [],
  );
  const other = folder(t, {
    'events.csv': `${EVENTS}8.0,2026-11-29T11:05:55Z,xds-nack,envoy,istio-system/istio-ingressgateway-x,,bad cluster\n`,
    'bursts.csv': `${BURSTS_HEAD}7.9,80,3,pod-deleting,default/httpbin-a,7.9,pod-termination\n30.1,0,1,,,,unattributed\n`,
  });
  assert.deepEqual(await checkShape('pod-termination', run(4), other), [
    'r1: 1 configuration(s) refused (xds-nack): istio-system/istio-ingressgateway-x',
    'r1: 4 failed, 3 of them in bursts at a terminating pod; others: 1 at 30.1 s (unattributed)',
  ]);
  const empty = folder(t, {});
  assert.deepEqual(await checkShape('pod-termination', run(1), empty), [
    `r1: events.csv is missing in ${empty}`,
  ]);
});

test("pod-termination: the app's keep-alive close the gateway met is allowed beside the terminating pods, nothing else", async (t) => {
  // The --backend cluster E2 on kind of 2026-11-29: 3 keep-alive races at 7.1 s, 1 at a terminating pod.
  const race = `${BURSTS_HEAD}7.127,119,3,,,,keep-alive-race\n9.0,0,1,pod-deleting,default/httpbin-a,8.767,pod-termination\n`;
  assert.deepEqual(
    await checkShape('pod-termination', run(4), folder(t, { 'events.csv': EVENTS, 'bursts.csv': race })),
    [],
  );
  // More at the gateway than fortio counted: a first attempt fortio retried and counted by its
  // success (the --backend cluster E2 on kind of 2026-11-29: 4 at terminating pods, 3 failed).
  assert.deepEqual(
    await checkShape('pod-termination', run(3), folder(t, { 'events.csv': EVENTS, 'bursts.csv': race })),
    [],
  );
  assert.deepEqual(
    await checkShape('pod-termination', run(5), folder(t, { 'events.csv': EVENTS, 'bursts.csv': race })),
    ['r1: 5 failed, 1 of them in bursts at a terminating pod and 3 in keep-alive races'],
  );
  const more = folder(t, { 'events.csv': EVENTS, 'bursts.csv': `${race}12.0,0,1,,,,unattributed\n` });
  assert.deepEqual(await checkShape('pod-termination', run(3), more), [
    'r1: 3 failed, 1 of them in bursts at a terminating pod and 3 in keep-alive races; others: 1 at 12.0 s (unattributed)',
  ]);
});

test("no-ztunnel-failure: the app's own keep-alive close is allowed, a failure through ztunnel is not", async (t) => {
  const appClose = folder(t, {
    'events.csv': EVENTS,
    'gateway-failures.csv': `${GATEWAY_HEAD}1,503,UC,upstream connection closed by the app,upstream_reset_before_response_started{connection_termination},\n`,
  });
  assert.deepEqual(await checkShape('no-ztunnel-failure', run(1), appClose), []);
  const through = folder(t, {
    'events.csv': EVENTS,
    'gateway-failures.csv': `${GATEWAY_HEAD}4,503,UC,CONNECT refused by ztunnel,upstream_reset_before_response_started{connection_termination},tunnel_response:503\n1,503,UC,HBONE connection closed with the request in flight,x,\n`,
  });
  assert.deepEqual(await checkShape('no-ztunnel-failure', run(5), through), [
    'r1: 5 failed through ztunnel: 4 CONNECT refused by ztunnel; 1 HBONE connection closed with the request in flight',
  ]);
});

test('pass: the verdict passed', async () => {
  assert.deepEqual(await checkShape('pass', run(0), '/nonexistent'), []);
  assert.deepEqual(await checkShape('pass', run(2), '/nonexistent'), ['r1: verdict fail, expected pass']);
});
