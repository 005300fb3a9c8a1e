import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { faultStartOf } from './fault-start.ts';
import { buildRunReport } from './report-html.ts';
import { renderSvg } from './render-svg.ts';
import { buildTimelineSpec } from './timeline-spec.ts';
import { buildDeadlineSpec } from './deadline-spec.ts';
import { buildZoomSpec } from './zoom-spec.ts';

type Row = Record<string, string | number>;

/** Writes timeline.svg and report.html into a run folder from the rows its CSVs hold. */
export async function writeRunReport(options: {
  runDir: string;
  row: Row;
  timeline: Row[];
  events: Row[];
  bursts: Row[];
  /** cpu.csv's rows; [] for runs from before it existed (no CPU panel then). */
  cpu?: Row[];
  /** timeline-by-end.csv, latency.csv and zoom.csv: absent in runs from before they existed. */
  byEnd?: Row[];
  latency?: Row[];
  zoom?: Row[];
  /** gateway-failures.csv and envoy-counters.csv: absent in runs from before them. */
  gatewayFailures?: Row[];
  envoyCounters?: Row[];
  /** deadlines.csv and deadline-trace.csv (E1 runs from issue 30 on). */
  deadlines?: Row[];
  deadlineTrace?: Row[];
  bucketMs: number;
}): Promise<string> {
  const fault = faultStartOf(options.events, options.row);
  const spec = buildTimelineSpec({
    timeline: options.timeline,
    events: options.events,
    ...(fault ? { fault } : {}),
    cpu: options.cpu ?? [],
    byEnd: options.byEnd ?? [],
    latency: options.latency ?? [],
    bucketMs: options.bucketMs,
    title: `${String(options.row['scenario'])}: requests and failures per ${String(options.bucketMs)} ms, by request start`,
  });
  const svg = await renderSvg(spec);
  await writeFile(join(options.runDir, 'timeline.svg'), svg);
  const zooms: { burst: number; svg: string }[] = [];
  for (const [i, burst] of options.bursts.entries()) {
    const rows = (options.zoom ?? []).filter((r) => Number(r['burst']) === i + 1);
    if (rows.length === 0) continue;
    const spec = buildZoomSpec({
      burst,
      number: i + 1,
      rows,
      events: options.events,
      ...(fault ? { fault } : {}),
    });
    zooms.push({ burst: i + 1, svg: await renderSvg(spec) });
  }
  const deadlinePlots: { deadline: number; svg: string }[] = [];
  for (const deadline of options.deadlines ?? []) {
    const n = Number(deadline['deadline']);
    const trace = (options.deadlineTrace ?? []).filter((r) => Number(r['deadline']) === n);
    if (trace.length === 0) continue;
    deadlinePlots.push({
      deadline: n,
      svg: await renderSvg(buildDeadlineSpec({ deadline, trace, cpu: options.cpu ?? [] })),
    });
  }
  const path = join(options.runDir, 'report.html');
  await writeFile(
    path,
    buildRunReport({
      row: options.row,
      svg,
      zooms,
      bursts: options.bursts,
      events: options.events,
      timeline: options.timeline,
      ...(fault ? { fault } : {}),
      envoy: { gatewayFailures: options.gatewayFailures ?? [], envoyCounters: options.envoyCounters ?? [] },
      deadlines: { rows: options.deadlines ?? [], plots: deadlinePlots },
    }),
  );
  return path;
}
