import assert from 'node:assert/strict';
import { it } from 'node:test';
import { buildDeadlineSpec } from './deadline-spec.ts';
import { renderSvg } from './render-svg.ts';

it("draws a deadline's T_past and failures per 100 ms, and the path's run-queue wait per second", async () => {
  const deadline = {
    deadline: 1,
    t_s: '46.258',
    ztunnel: 'istio-system/ztunnel-a',
    lost: 47,
    band_low: 13,
    band_high: 65,
  };
  const trace = Array.from({ length: 30 }, (_, i) => ({
    deadline: 1,
    from_ms: -2000 + i * 100,
    requests: 150,
    failed: i === 20 ? 31 : i === 21 ? 16 : 0,
    t_past_ms: i === 25 ? '' : (20 + i).toFixed(3),
  }));
  const cpu = [
    { t_s: '46.1', component: 'gw', group: 'gateway', cpu_pct: 60, run_queue_wait_pct: 150 },
    { t_s: '47.1', component: 'gw', group: 'gateway', cpu_pct: 60, run_queue_wait_pct: 160 },
    { t_s: '47.1', component: 'z1', group: 'ztunnel', cpu_pct: 20, run_queue_wait_pct: 40 },
    { t_s: '47.1', component: 'z2', group: 'ztunnel', cpu_pct: 20, run_queue_wait_pct: 30 },
    { t_s: '47.1', component: 'f', group: 'generator', cpu_pct: 20, run_queue_wait_pct: 999 },
  ];
  const spec = buildDeadlineSpec({ deadline, trace, cpu });
  const svg = await renderSvg(spec);
  assert.match(svg, /deadline 1 \(istio-system\/ztunnel-a at 46\.258 s\): 47 lost, band 13-65/);
  assert.match(svg, /T_past, ms/);
  assert.match(svg, /run-queue wait,/);
  // The two ztunnels' waits at one second are summed (70), the generator is not on the path.
  const data = JSON.stringify(spec);
  assert.match(data, /"group":"ztunnel","wait":70/);
  assert.doesNotMatch(data, /generator/);
});
