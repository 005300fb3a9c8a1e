import { isBackendName, providerOf } from '../../clusters/registry.ts';
import { CPU_COLUMN_GROUPS } from '../record/run-row.ts';
import { formatEnvoyCounters } from '../explain/envoy-counters.ts';
import type { EnvoyCounters } from '../explain/envoy-counters.ts';
import { formatDeadlineAccount } from '../explain/deadline-accounting.ts';
import type { BurstExplanation } from '../explain/explain-bursts.ts';
import { formatGatewayEvidence } from '../explain/explain-run.ts';
import type { GatewayEvidence } from '../explain/explain-run.ts';
import type { Burst, RecordTally } from '../tally/index.ts';
import { OUTCOME_CLASSES } from '../tally/index.ts';

type SummaryRow = Record<string, string | number>;

/**
 * fortio's closing lines: fortio's own when fortio ran, else the same lines from k6's records (its
 * percentiles, each status with -1 for no response); then the classes.
 */
function fortioLines(tally: RecordTally, row: SummaryRow, fortioOwn: string | undefined): string[] {
  const lines: string[] = fortioOwn ? fortioOwn.split('\n') : k6AsFortioLines(tally, row);
  const totals = tally.timeline.totals();
  const failed = OUTCOME_CLASSES.filter((c) => c !== 'ok' && totals[c] > 0).map(
    (c) => `${c} ${String(totals[c])}`,
  );
  lines.push(
    `503s: ${String(row['http_503'])}; failures by class: ${failed.length ? failed.join(', ') : 'none'}`,
  );
  return lines;
}

function k6AsFortioLines(tally: RecordTally, row: SummaryRow): string[] {
  const lines: string[] = [];
  for (const p of tally.fortio.durations.Percentiles ?? [])
    lines.push(`# target ${String(p.Percentile)}% ${p.Value.toPrecision(6).replace(/\.?0+$/, '')}`);
  for (const [status, count] of [...tally.byStatus].sort((a, b) => a[0] - b[0]))
    lines.push(
      `Code ${String(status === 0 ? -1 : status).padStart(3)} : ${String(count)} (${((100 * count) / tally.total).toFixed(1)} %)`,
    );
  const seconds = Number(row['duration_s']);
  lines.push(
    `All done ${String(tally.total)} calls (plus 0 warmup) ${tally.latency.avgMs.toFixed(3)} ms avg, ${(tally.total / seconds).toFixed(1)} qps`,
  );
  return lines;
}

/** What Envoy logged (failures by details, failed tunnels) and counted (cluster counters) over the run. */
function envoyLines(gatewayEvidence?: GatewayEvidence, envoyCounters?: EnvoyCounters): string[] {
  return [
    ...(gatewayEvidence ? [formatGatewayEvidence(gatewayEvidence)] : []),
    ...(envoyCounters ? [formatEnvoyCounters(envoyCounters)] : []),
  ];
}

/** What an existing cluster's run says when its gateway wrote no access log. */
export const NO_GATEWAY_LOG =
  "gateway access log: none in the gateway's logs (Istio's gateway writes one with meshConfig.accessLogFile: /dev/stdout, or a Telemetry resource): the failures are explained without Envoy's response flags";

/** Where the run's requests and CPU went: the generator against the tally, the gateway's log, CPU per component. */
function accountingLines(row: SummaryRow, envoy: readonly string[]): string[] {
  const generator = `${String(row['generator'])} ${String(row['generator_version'])}`;
  const lines = [
    `${generator} counted ${String(row['generator_requests'])} = tallied ${String(row['requests'])}; dropped iterations ${String(row['dropped_iterations'])}`,
  ];
  if (row['generator_retried'])
    lines.push(
      `${generator} retried calls once on a new connection after a reused one failed before any answer (${String(row['generator_retried'])}): counted by the retry's outcome, as fortio counts them in the documents; the gateway logged the first attempts`,
    );
  const hasGatewayLog = row['gateway_log_requests'] !== '' && row['gateway_log_requests'] !== undefined;
  // An existing cluster's gateway writes an access log only where its mesh is told to: say what the
  // explanation lacked without it.
  const backend = String(row['backend']);
  const logAlwaysOn = isBackendName(backend) && providerOf(backend).capabilities.has('gatewayAccessLog');
  if (!hasGatewayLog && !logAlwaysOn) lines.push(NO_GATEWAY_LOG);
  if (hasGatewayLog)
    lines.push(
      `gateway access log: ${String(row['gateway_log_requests'])} requests, ${String(row['gateway_log_failures'])} answered or cut by the gateway (${String(row['generator'])} counted ${String(Number(row['requests']) - Number(row['ok']))} failed)${Number(row['gateway_log_warmup_failures']) > 0 ? `; ${String(row['gateway_log_warmup_failures'])} more during the generator's warmup calls, which it does not count` : ''}`,
    );
  lines.push(...envoy);
  if (row['generator_cpu_avg_pct'] !== '')
    lines.push(
      `generator: ${generator} CPU ${String(row['generator_cpu_avg_pct'])} % avg, ${String(row['generator_cpu_max_pct'])} % max (of one core); machine ${String(row['machine_cpu_busy_pct'])} % busy${Number(row['machine_cpu_busy_pct']) >= 95 ? ' - saturated: the generator shares the cores with the system under test' : ''}`,
    );
  const cpu = CPU_COLUMN_GROUPS.filter(
    (g) => row[`${g}_cpu_avg_pct`] !== '' && row[`${g}_cpu_avg_pct`] !== undefined,
  ).map(
    (g) =>
      `${g} ${String(row[`${g}_cpu_avg_pct`])}/${String(row[`${g}_cpu_max_pct`])} (waited ${String(row[`${g}_cpu_wait_avg_pct`] ?? '-')})`,
  );
  if (cpu.length > 0)
    lines.push(
      `cpu, % of one core (mean/max over the load; waited: run-queue wait, % of the time): ${cpu.join(', ')}; per pod and second in cpu.csv`,
    );
  return lines;
}

/**
 * E1's count against its mechanism over all the run's drain deadlines, and what the same mechanism
 * gives at ASM's rate (a projection from this run's T_past and L, not a measurement).
 */
function mechanismLines(row: SummaryRow): string[] {
  if (row['deadline_predicted'] === '' || row['deadline_predicted'] === undefined) return [];
  return [
    `drain deadlines: ${String(row['deadline_accounted'])} lost, ${row['deadline_inside'] === 1 ? 'inside' : 'OUTSIDE'} the mechanism's ${String(row['deadline_predicted_low'])}-${String(row['deadline_predicted_high'])} (95 %; predicted ${String(row['deadline_predicted_fin'])} if FIN, ${String(row['deadline_predicted'])} if reset): T_past ${String(row['deadline_t_past_ms'])} ms + L ${String(row['deadline_l_ms'])} ms at ${String(row['deadline_rate_per_s'])} req/s per deadline; the path's processes waited for a CPU ${String(row['deadline_cpu_wait_pct'] || '-')} % of their runnable time there`,
    ...closeLine(row),
    `projection (this run's mechanism, not a measurement; --project-rate): at ${String(row['deadline_projected_rate_per_s'])} req/s with this run's T_past and L, about ${String(row['deadline_projected'])} lost; with T_past + L at 1 ms, about ${String(row['deadline_projected_at_1ms'])}`,
  ];
}

/** The 1.28 report's lag, where pods terminated and their removal was seen. */
function removalLagLines(row: SummaryRow): string[] {
  if (row['removal_lag_ms'] === '' || row['removal_lag_ms'] === undefined) return [];
  const where =
    row['timing_model'] === 'modelled' ? "the control plane's push, modelled" : "ztunnel's own log";
  return [
    `removal lag (a terminating pod's app exit to ztunnel's removal of it, ${where}): median ${String(row['removal_lag_ms'])} ms, longest ${String(row['removal_lag_max_ms'])} ms`,
  ];
}

/** How the old ztunnels' close reached their connections: their own read, and the wire's. */
function closeLine(row: SummaryRow): string[] {
  const given = (c: string): boolean => row[c] !== '' && row[c] !== undefined;
  return [
    ...(given('deadline_reset_share')
      ? [
          `ztunnel's close at the deadlines: ${String(row['deadline_reset_share'])} of the dropped connections rode a socket with unread bytes (RST), the rest got a FIN; the count follows rate x (T_past + L) either way (docs/guide/e1-accounting.md)`,
        ]
      : []),
    ...(given('deadline_wire_fin')
      ? [
          `on the wire at the deadlines (tcpdump, ztunnel's :15008 to the gateway): ${String(row['deadline_wire_fin'])} connections closed with a FIN, ${String(row['deadline_wire_rst'])} with a RST`,
        ]
      : []),
  ];
}

/**
 * A group of failures with one cause is a burst when they come close together: within a second, or at
 * least one per 100 ms (the timeline's bucket) on average. Otherwise they are a spread over the load
 * (E1 on kind: ten keep-alive races over 30 s), and are said as one, with their average spacing.
 */
export function burstHeading(
  b: Pick<Burst, 'startMs' | 'durationMs' | 'failures'>,
  loadStartMs: number,
): string {
  const at = ((b.startMs - loadStartMs) / 1000).toFixed(1);
  const dense = b.durationMs <= 1000 || b.durationMs / Math.max(b.failures, 1) <= 100;
  if (dense) return `burst at ${at} s: ${String(b.failures)} failed over ${String(b.durationMs)} ms`;
  const end = ((b.startMs + b.durationMs - loadStartMs) / 1000).toFixed(1);
  const every = (b.durationMs / Math.max(b.failures, 1) / 1000).toFixed(2);
  return `spread from ${at} s to ${end} s (not a burst): ${String(b.failures)} failed over ${(b.durationMs / 1000).toFixed(1)} s, one every ${every} s on average`;
}

/** fortio's closing lines, then failure classes, bursts and the verdict. */
export function formatClusterRun(options: {
  tally?: RecordTally | undefined;
  bursts: Burst[];
  explanations?: BurstExplanation[];
  gatewayEvidence?: GatewayEvidence;
  envoyCounters?: EnvoyCounters;
  loadStartMs: number;
  row: SummaryRow;
  runDir: string;
  notes?: string[];
  /** fortio's own closing text, when fortio ran. */
  fortioSummary?: string;
}): string {
  const { tally, row } = options;
  const lines: string[] = tally && tally.total > 0 ? fortioLines(tally, row, options.fortioSummary) : [];
  options.bursts.forEach((b, i) => {
    const cause = b.cause
      ? ` after ${b.cause.kind} ${b.cause.object} at ${((b.cause.atMs - options.loadStartMs) / 1000).toFixed(3)} s`
      : '';
    lines.push(`${burstHeading(b, options.loadStartMs)}${cause}`);
    const why = options.explanations?.[i];
    if (why) lines.push(`  mechanism ${why.mechanism}: ${why.text}`);
    if (why?.account) lines.push(`  ${formatDeadlineAccount(why.account)}`);
  });
  lines.push(...mechanismLines(row), ...removalLagLines(row));
  const envoy = envoyLines(options.gatewayEvidence, options.envoyCounters);
  lines.push(...accountingLines(row, envoy), ...(options.notes ?? []));
  lines.push(`run folder: ${options.runDir}`);
  lines.push(`verdict: ${String(row['verdict'])} (${String(row['reason'])})`);
  return `${lines.join('\n')}\n`;
}
