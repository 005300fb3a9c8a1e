import { join } from 'node:path';
import { badInput } from '../../../lib/index.ts';
import { readCsvRows as rows } from '../write-csv.ts';

type Row = Record<string, string | number>;

/** A run folder's CSVs, as the report needs them. */
export async function readRunFolder(runDir: string): Promise<{
  row: Row;
  timeline: Row[];
  events: Row[];
  bursts: Row[];
  cpu: Row[];
  byEnd: Row[];
  latency: Row[];
  zoom: Row[];
  gatewayFailures: Row[];
  envoyCounters: Row[];
  deadlines: Row[];
  deadlineTrace: Row[];
}> {
  const [row] = await rows(join(runDir, 'summary.csv'));
  if (!row)
    throw badInput('the run folder', 'a folder with summary.csv (written by npm run experiment)', runDir);
  return {
    row,
    timeline: await rows(join(runDir, 'timeline.csv')),
    events: await rows(join(runDir, 'events.csv')),
    bursts: await rows(join(runDir, 'bursts.csv')),
    cpu: await rows(join(runDir, 'cpu.csv')),
    byEnd: await rows(join(runDir, 'timeline-by-end.csv')),
    latency: await rows(join(runDir, 'latency.csv')),
    zoom: await rows(join(runDir, 'zoom.csv')),
    gatewayFailures: await rows(join(runDir, 'gateway-failures.csv')),
    envoyCounters: await rows(join(runDir, 'envoy-counters.csv')),
    deadlines: await rows(join(runDir, 'deadlines.csv')),
    deadlineTrace: await rows(join(runDir, 'deadline-trace.csv')),
  };
}
