// E5's measures from component logs written by the components' own loggers (a synthetic run).
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { formatClientRequest } from '../../apps/client/client-load.ts';
import type { LifecycleEvent } from '../../clusters/events.ts';
import { createLogger } from '../../lib/index.ts';
import { measureDrainOptions } from './drain-option-metrics.ts';

const WALL0 = 1_800_000_000_000; // the run clock's zero on the wall clock

/** A component's log file, written line by line with the real logger (ztunnel's format for ztunnel). */
function logFile(component: string) {
  const lines: string[] = [];
  let at = 0;
  const log = createLogger({
    component,
    ...(component === 'ztunnel' ? { format: 'istio' as const } : {}),
    write: (l) => lines.push(l),
    wallNow: () => WALL0 + at,
  });
  return {
    at(ms: number) {
      at = ms;
      return log;
    },
    text: () => lines.join('\n') + '\n',
  };
}

const ev = (
  atMs: number,
  kind: LifecycleEvent['kind'],
  object: string,
  extra: Partial<LifecycleEvent> = {},
) => ({ atMs, kind, source: 'kubelet', object, ...extra }) satisfies LifecycleEvent;

test('stale pooled connections, their PINGs, new connections while terminating, close_notify and client errors', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'drain-metrics-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const pod = '127.1.2.1:15008';
  const events: LifecycleEvent[] = [
    ev(0, 'pod-created', 'default/httpbin-a', { node: 'node-1', detail: '127.1.2.1 (app 127.1.2.2)' }),
    ev(0, 'pod-created', 'default/client-c', { node: 'node-2', detail: '127.2.2.1 (app 127.2.2.2)' }),
    ev(0, 'pod-created', 'istio-system/ztunnel-x', { node: 'node-2', detail: '127.2.0.1 (app 127.2.0.1)' }),
    ev(0, 'pod-created', 'istio-system/ztunnel-y', { node: 'node-1', detail: '127.1.0.1 (app 127.1.0.1)' }),
    ev(10_000, 'pod-deleting', 'default/httpbin-a'),
    ev(20_000, 'sandbox-removed', 'default/httpbin-a'),
  ];
  // The client node's ztunnel: its pool and its outbound connections.
  const x = logFile('ztunnel');
  const pool = (ms: number, type: string, conn: number): void => {
    x.at(ms).child({ scope: 'pool' }).info(`hbone pool ${type}`, { conn, dstAddr: pod });
  };
  pool(1_000, 'opened', 1); // never leaves: stale, still open at the end
  pool(2_000, 'opened', 3); // stale, then a PING and its timeout drop it
  pool(12_000, 'opened', 2); // opened while terminating, closed before the network went
  pool(15_000, 'closed', 2);
  pool(25_000, 'ping', 3);
  pool(45_000, 'ping-timeout', 3);
  pool(45_000, 'removed', 3);
  const outbound = (endMs: number, durationMs: number): void => {
    x.at(endMs)
      .child({ scope: 'access' })
      .info('connection complete', {
        'dst.workload': 'httpbin-a',
        direction: 'outbound',
        duration: `${String(durationMs)}ms`,
      });
  };
  outbound(11_100, 100); // started while terminating
  outbound(5_100, 100); // before the deletion
  // The server node's ztunnel: pool lines there are not the client's; close_notify counts.
  const y = logFile('ztunnel');
  y.at(3_000).child({ scope: 'pool' }).info('hbone pool opened', { conn: 9, dstAddr: pod });
  y.at(19_000).info('pod drained at CNI DEL', { uid: 'u', name: 'httpbin-a', goaways: 3, close_notify: 3 });
  const client = logFile('client');
  for (const [status, error] of [
    [418, ''],
    [200, ''],
    [0, 'ECONNRESET'],
  ] as const)
    client.at(30_000).info(formatClientRequest({ startWallMs: WALL0, durationMs: 1, status, error }));
  await writeFile(join(dir, 'istio-system_ztunnel-x_istio-proxy.log'), x.text());
  await writeFile(join(dir, 'istio-system_ztunnel-y_istio-proxy.log'), y.text());
  await writeFile(join(dir, 'default_client-c_client.log'), client.text());
  const sample = (atMs: number, component: string, pct: number) => ({
    atMs,
    component,
    group: 'ztunnel',
    pct,
    waitPct: 0,
  });
  const m = await measureDrainOptions({
    logDir: dir,
    events,
    wallOffsetMs: WALL0,
    endMs: 60_000,
    cpuSamples: [
      sample(1_000, 'istio-system/ztunnel-x', 10),
      sample(1_000, 'istio-system/ztunnel-y', 90),
      sample(2_000, 'istio-system/ztunnel-x', 20),
    ],
  });
  assert.deepEqual(m, {
    clientRequests: 3,
    clientFailed: 1,
    staleConnections: 2,
    staleLingerMaxMs: 40_000,
    staleOpenAtEnd: 1,
    pingsAfterGone: 1,
    pingTimeouts: 1,
    hboneOpenedWhileTerminating: 1,
    appConnectionsWhileTerminating: 1,
    closeNotifySent: 3,
    clientZtunnelCpuPct: 15,
  });
});

test('no meshed client in the run: nothing to measure', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'drain-metrics-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  assert.equal(await measureDrainOptions({ logDir: dir, events: [], wallOffsetMs: 0, endMs: 1 }), undefined);
});
