import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { describe, it } from 'node:test';
import { createSystemClock } from '../../../lib/index.ts';
import { groupOfOwner, startCpuMonitor, summarizeGroups } from '../cpu-monitor.ts';
import { processTree, readProcTable } from '../proc-stat.ts';

/** A Node process that starts a child burning one core for `ms`, and itself sleeps. */
function spawnBusyTree(ms: number) {
  const script = `
    const { spawn } = require('node:child_process');
    const child = spawn(process.execPath, ['-e', 'const end = Date.now() + ${String(ms)}; while (Date.now() < end) {}'], { stdio: 'inherit' });
    child.on('exit', () => process.exit(0));
  `;
  return spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
}

describe('cpu monitor', () => {
  it('counts a process with its descendants: a busy grandchild shows under its root', async (t) => {
    const busy = spawnBusyTree(1500);
    const idle = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 3000)'], { stdio: 'ignore' });
    t.after(() => {
      busy.kill('SIGKILL');
      idle.kill('SIGKILL');
    });
    const monitor = startCpuMonitor({
      clock: createSystemClock(),
      intervalMs: 250,
      components: () => [
        { name: 'busy', group: 'gateway', roots: [busy.pid ?? -1], tree: true },
        { name: 'busy-root-only', group: 'root-only', roots: [busy.pid ?? -1], tree: false },
        { name: 'idle', group: 'httpbin', roots: [idle.pid ?? -1], tree: true },
      ],
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const report = monitor.stop();
    const gateway = report.groups.get('gateway');
    assert.ok(gateway && gateway.samples >= 3, `samples: ${JSON.stringify(gateway)}`);
    // One core busy in the grandchild; the root itself only waits.
    assert.ok(gateway.avgPct > 60, `tree avg ${String(gateway.avgPct)}`);
    assert.ok((report.groups.get('root-only')?.avgPct ?? 0) < 20);
    assert.ok((report.groups.get('httpbin')?.avgPct ?? 100) < 20);
    busy.kill('SIGKILL');
    await once(busy, 'exit');
  });

  it('sums a group over its components per sample, then takes mean and max', () => {
    const groups = summarizeGroups([
      { atMs: 1000, component: 'a', group: 'ztunnel', pct: 10, waitPct: 5 },
      { atMs: 1000, component: 'b', group: 'ztunnel', pct: 30, waitPct: 15 },
      { atMs: 2000, component: 'a', group: 'ztunnel', pct: 20, waitPct: 0 },
      { atMs: 2000, component: 'b', group: 'ztunnel', pct: 0, waitPct: 0 },
      { atMs: 2000, component: 'k6', group: 'k6', pct: 50, waitPct: 40 },
    ]);
    assert.deepEqual(groups.get('ztunnel'), { avgPct: 30, maxPct: 40, waitAvgPct: 10, samples: 2 });
    assert.deepEqual(groups.get('k6'), { avgPct: 50, maxPct: 50, waitAvgPct: 40, samples: 1 });
  });

  it("measures run-queue wait: one busy process more than there are cores makes them wait a core's worth", async (t) => {
    // The sleeper is up (its Node start-up, which is runnable, done) before the loops start: its
    // start-up would otherwise queue behind them and count as waiting.
    const alone = spawn(process.execPath, ['-e', 'console.log("up"); setTimeout(() => {}, 4000)'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    t.after(() => alone.kill('SIGKILL'));
    await once(alone.stdout, 'data');
    const loops = Array.from({ length: availableParallelism() + 1 }, () =>
      spawn(process.execPath, ['-e', 'const end = Date.now() + 2000; while (Date.now() < end) {}'], {
        stdio: 'ignore',
      }),
    );
    t.after(() => {
      for (const p of loops) p.kill('SIGKILL');
    });
    const monitor = startCpuMonitor({
      clock: createSystemClock(),
      intervalMs: 250,
      components: () => [
        { name: 'loops', group: 'busy', roots: loops.map((p) => p.pid ?? -1), tree: false },
        { name: 'alone', group: 'idle', roots: [alone.pid ?? -1], tree: false },
      ],
    });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const report = monitor.stop();
    // n + 1 runnable loops on n cores: together they wait about one core's time (100 %).
    const busy = report.groups.get('busy');
    assert.ok(busy && busy.waitAvgPct > 40, `busy waited ${JSON.stringify(busy)}`);
    assert.ok((report.groups.get('idle')?.waitAvgPct ?? 100) < 5);
  });

  it('names pods by their owner', () => {
    assert.equal(groupOfOwner('deployment/istio-ingressgateway'), 'gateway');
    assert.equal(groupOfOwner('daemonset/ztunnel'), 'ztunnel');
    assert.equal(groupOfOwner('deployment/httpbin'), 'httpbin');
  });

  it('finds the descendants of a root in the process table', () => {
    const table = readProcTable();
    assert.ok(table.has(process.pid));
    assert.deepEqual(processTree(table, [process.pid]).slice(0, 1), [process.pid]);
    assert.deepEqual(processTree(table, [-1]), []);
  });
});
