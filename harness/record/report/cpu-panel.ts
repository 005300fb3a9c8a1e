import { colourScaleOf, CPU_COLOURS } from './colours.ts';
import type { Layer, TimeAxis } from './vega-types.ts';

type Row = Record<string, string | number>;

/** Per sample time and component group: the summed CPU of the group's components. */
export function cpuByGroup(cpu: Row[]): { t_s: number; group: string; cpu_pct: number }[] {
  const sums = new Map<string, { t_s: number; group: string; cpu_pct: number }>();
  for (const r of cpu) {
    const key = `${String(r['t_s'])}|${String(r['group'])}`;
    const entry = sums.get(key) ?? { t_s: Number(r['t_s']), group: String(r['group']), cpu_pct: 0 };
    entry.cpu_pct += Number(r['cpu_pct']);
    sums.set(key, entry);
  }
  return [...sums.values()];
}

/** CPU per component group, % of one core; the legend names the groups sampled. */
export function cpuLayer(x: TimeAxis, values: ReturnType<typeof cpuByGroup>): Layer {
  const scale = colourScaleOf(
    values.map((c) => c.group),
    { order: Object.keys(CPU_COLOURS), colours: CPU_COLOURS, fallback: '#bcbd22' },
  );
  return {
    data: { values },
    mark: { type: 'line', interpolate: 'step-before' },
    encoding: {
      x,
      y: { field: 'cpu_pct', type: 'quantitative', title: ['CPU,', '% of one core'] },
      color: { field: 'group', type: 'nominal', title: 'component', scale },
      tooltip: [{ field: 'group' }, { field: 't_s' }, { field: 'cpu_pct' }],
    },
  };
}
