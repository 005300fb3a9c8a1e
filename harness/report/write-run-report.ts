import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildRunReport } from './report-html.ts';
import { renderSvg } from './render-svg.ts';
import { buildTimelineSpec } from './timeline-spec.ts';

type Row = Record<string, string | number>;

/** Writes timeline.svg and report.html into a run folder from the rows its CSVs hold. */
export async function writeRunReport(options: {
  runDir: string;
  row: Row;
  timeline: Row[];
  events: Row[];
  bursts: Row[];
  bucketMs: number;
}): Promise<string> {
  const spec = buildTimelineSpec({
    timeline: options.timeline,
    events: options.events,
    bucketMs: options.bucketMs,
    title: `${String(options.row['scenario'])}: requests and failures per ${String(options.bucketMs)} ms, by request start`,
  });
  const svg = await renderSvg(spec);
  await writeFile(join(options.runDir, 'timeline.svg'), svg);
  const path = join(options.runDir, 'report.html');
  await writeFile(
    path,
    buildRunReport({ row: options.row, svg, bursts: options.bursts, events: options.events }),
  );
  return path;
}
