import type { TopLevelSpec } from 'vega-lite';
import { PANEL_WIDTH } from './timeline-spec.ts';

type Row = Record<string, string | number>;

const PATH_GROUPS = new Set(['gateway', 'ztunnel', 'httpbin']);
const DOMAIN_MS: [number, number] = [-2000, 1000];

/**
 * One drain deadline accounted for (deadlines.csv, deadline-trace.csv, cpu.csv): on top, the mean
 * time a request spent past the gateway (T_past) per 100 ms by request start, with the failed
 * requests as bars, around the deadline at 0; below, how long the path's processes (gateway,
 * ztunnel, httpbin) waited for a CPU per second (run-queue wait, schedstat): the part of T_past
 * the machine adds.
 */
export function buildDeadlineSpec(options: { deadline: Row; trace: Row[]; cpu: Row[] }): TopLevelSpec {
  const d = options.deadline;
  const atS = Number(d['t_s']);
  const x = {
    field: 'ms',
    type: 'quantitative' as const,
    title: 'ms from the drain deadline',
    scale: { domain: DOMAIN_MS, nice: false },
  };
  const trace = options.trace.map((r) => ({
    ms: Number(r['from_ms']) + 50,
    t_past_ms: r['t_past_ms'] === '' ? null : Number(r['t_past_ms']),
    failed: Number(r['failed']),
  }));
  const waits = options.cpu
    .filter((r) => PATH_GROUPS.has(String(r['group'])) && r['run_queue_wait_pct'] !== undefined)
    .map((r) => ({
      ms: (Number(r['t_s']) - atS) * 1000,
      group: String(r['group']),
      wait: Number(r['run_queue_wait_pct']),
    }))
    .filter((r) => r.ms >= DOMAIN_MS[0] - 1000 && r.ms <= DOMAIN_MS[1] + 1000);
  const summed = new Map<string, { ms: number; group: string; wait: number }>();
  for (const w of waits) {
    const key = `${String(w.ms)}|${w.group}`;
    const s = summed.get(key) ?? { ...w, wait: 0 };
    s.wait += w.wait;
    summed.set(key, s);
  }
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: `deadline ${String(d['deadline'])} (${String(d['ztunnel'])} at ${String(d['t_s'])} s): ${String(d['lost'])} lost, band ${String(d['band_low'])}-${String(d['band_high'])}`,
    // Both panels' y axes take the same room, so their x axes line up.
    config: { axisY: { minExtent: 50, maxExtent: 50 } },
    vconcat: [
      {
        width: PANEL_WIDTH,
        height: 160,
        data: { values: trace },
        layer: [
          {
            mark: { type: 'bar', color: '#d62728', opacity: 0.6, clip: true },
            encoding: {
              x,
              y: { field: 'failed', type: 'quantitative', title: 'failed per 100 ms' },
            },
          },
          {
            mark: { type: 'line', point: true, color: '#1f77b4', clip: true },
            encoding: {
              x,
              y: { field: 't_past_ms', type: 'quantitative', title: 'T_past, ms (mean per 100 ms)' },
            },
          },
          { mark: { type: 'rule', color: '#000' }, encoding: { x: { datum: 0, type: 'quantitative' } } },
        ],
        resolve: { scale: { y: 'independent' } },
      },
      {
        width: PANEL_WIDTH,
        height: 100,
        data: { values: [...summed.values()] },
        mark: { type: 'line', interpolate: 'step-before', point: true, clip: true },
        encoding: {
          x,
          y: { field: 'wait', type: 'quantitative', title: ['run-queue wait,', '% of the second'] },
          color: { field: 'group', type: 'nominal', title: 'component' },
        },
      },
    ],
  };
}
