import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { envoyCounterRows } from '../../explain/envoy-counters.ts';
import { deadlineRows } from '../../record/deadline-rows.ts';
import { failureKindRows } from '../../explain/failure-details.ts';
import { buildFortioResult } from '../../record/fortio-json.ts';
import { toOpenMetrics } from '../../record/openmetrics.ts';
import { appendCsvRow, writeCsv } from '../../record/write-csv.ts';
import type { CsvRow } from '../../record/write-csv.ts';
import { writeRunReport } from '../../record/report/write-run-report.ts';
import { BUCKET_MS } from '../drive-load.ts';
import { buildSummaryRow } from '../../record/run-row.ts';
import {
  burstRows,
  cpuRows,
  eventRows,
  latencyRows,
  timelineRows,
  zoomRows,
} from '../../record/run-tables.ts';
import type { Judgement } from './judge-run.ts';
import type { Observation, RunPlan } from './run-context.ts';
import { runFacts } from './run-facts.ts';
import { writeCiReports } from './write-ci-reports.ts';

/**
 * fortio.json: the load as fortio's own result (browse and overlay it with `fortio report`): fortio's
 * own file when fortio ran, else built from k6's records in fortio's format.
 */
async function writeFortioJson(plan: RunPlan, seen: Observation): Promise<void> {
  const { tally, load } = seen;
  if (!tally || !load || tally.total === 0) return;
  if (load.files.fortioJsonPath) {
    await copyFile(load.files.fortioJsonPath, join(plan.runDir, 'fortio.json'));
    return;
  }
  const { params } = plan;
  const result = buildFortioResult({
    labels: `ztunnel-harness ${params.scenario} ${plan.runId}`,
    startWallMs: load.counts.firstStartWallMs,
    qps: params.qps,
    durationS: params.durationS,
    actualDurationMs: load.counts.lastEndWallMs - load.counts.firstStartWallMs,
    connections: params.connections,
    url: load.spec.targets[0] ?? '',
    byStatus: tally.byStatus,
    durations: tally.fortio.durations,
    errors: tally.fortio.errors,
    version: `ztunnel-harness (k6 ${plan.generator.version})`,
  });
  await writeFile(join(plan.runDir, 'fortio.json'), `${JSON.stringify(result, null, 2)}\n`);
}

/** The run folder's tables, by file name (empty ones are not written). */
function runTables(plan: RunPlan, seen: Observation, judged: Judgement): Record<string, CsvRow[]> {
  const { tally, loadStartMs } = seen;
  const deadlines = deadlineRows(judged.deadlines, loadStartMs);
  return {
    'events.csv': eventRows(judged.events, plan.clock.wallOffsetMs, loadStartMs),
    'timeline.csv': tally ? timelineRows(tally.timeline, loadStartMs) : [],
    'bursts.csv': burstRows(judged.bursts, loadStartMs, judged.explanations),
    'timeline-by-end.csv': tally ? timelineRows(tally.byEnd, loadStartMs) : [],
    'latency.csv': tally ? latencyRows(tally, loadStartMs) : [],
    'zoom.csv': tally ? zoomRows(tally, judged.bursts, loadStartMs) : [],
    'cpu.csv': seen.cpu ? cpuRows(seen.cpu, loadStartMs) : [],
    'gateway-failures.csv': judged.gatewayEvidence
      ? failureKindRows(judged.gatewayEvidence.failureKinds)
      : [],
    'envoy-counters.csv': envoyCounterRows(judged.envoyCounters),
    'deadlines.csv': deadlines.deadlines,
    'deadline-trace.csv': deadlines.trace,
  };
}

/**
 * Step 5, write: summary.csv (with the scenario's own columns), fortio.json, the tables, report.html, and the row
 * appended to runs.csv (one schema for every scenario). Returns the summary row.
 */
export async function writeRun(plan: RunPlan, seen: Observation, judged: Judgement): Promise<CsvRow> {
  const common = buildSummaryRow(plan.params, seen.tally, judged.bursts, runFacts(plan, seen, judged));
  const row = { ...common, ...seen.companion?.columns };
  await writeCsv(join(plan.runDir, 'summary.csv'), [row]);
  await writeFortioJson(plan, seen);
  if (seen.metrics?.length) await writeFile(join(plan.runDir, 'metrics.om'), toOpenMetrics(seen.metrics));
  await writeCiReports(plan, judged);
  const tables = runTables(plan, seen, judged);
  for (const [file, rows] of Object.entries(tables))
    if (rows.length > 0) await writeCsv(join(plan.runDir, file), rows);
  try {
    await writeRunReport({
      runDir: plan.runDir,
      row,
      timeline: tables['timeline.csv'] ?? [],
      events: tables['events.csv'] ?? [],
      bursts: tables['bursts.csv'] ?? [],
      cpu: tables['cpu.csv'] ?? [],
      byEnd: tables['timeline-by-end.csv'] ?? [],
      latency: tables['latency.csv'] ?? [],
      zoom: tables['zoom.csv'] ?? [],
      gatewayFailures: tables['gateway-failures.csv'] ?? [],
      envoyCounters: tables['envoy-counters.csv'] ?? [],
      deadlines: tables['deadlines.csv'] ?? [],
      deadlineTrace: tables['deadline-trace.csv'] ?? [],
      bucketMs: BUCKET_MS,
    });
  } catch (err) {
    // The CSVs are the results; a report that cannot be drawn must not lose them.
    plan.write(`report.html not written: ${err instanceof Error ? err.message : String(err)}\n`);
  }
  await appendCsvRow(join(plan.resultsDir, 'runs.csv'), common);
  return row;
}
