// How a suite entry's runs read in the table ("ours"), by the name a suite file gives (`report: e1`):
// each experiment reports the figures its document gives, so they sit next to each other.
import { median } from '../../../lib/median.ts';
import { valueOf } from './shape-rule.ts';
import type { Row } from './shape-rule.ts';

const s = (r: Row, k: string): string => String(r[k]);
const failed = (r: Row): number => valueOf(r, 'failed');

/** `min / median / max` of a column over repeats, or the one value. */
export function spread(rows: readonly Row[], value: (r: Row) => number): string {
  const v = rows.map(value);
  if (v.length === 1) return String(v[0]);
  return `${String(Math.min(...v))} / ${String(Number(median(v).toFixed(3)))} / ${String(Math.max(...v))}`;
}

const col =
  (k: string) =>
  (r: Row): number =>
    valueOf(r, k);

/** `spread` over the runs that have the column; `-` where none has (a figure the experiment lacks). */
function spreadWhereGiven(rows: readonly Row[], k: string): string {
  const given = rows.filter((r) => r[k] !== undefined && r[k] !== '');
  return given.length === 0 ? '-' : spread(given, col(k));
}

/** The figures a release can move, each with its spread, those the experiment has (`versions`). */
const RELEASE_FIGURES: readonly (readonly [string, readonly string[], string])[] = [
  ['bursts', ['bursts'], ''],
  ['longest', ['max_burst_ms'], ' ms'],
  ['removal lag', ['removal_lag_ms'], ' ms'],
  ['deadline at SIGTERM +', ['deadline_after_sigterm_ms'], ' ms'],
  ['closes on the wire FIN; RST', ['deadline_wire_fin', 'deadline_wire_rst'], ''],
  ['long-lived FIN; RST', ['long_lived_fin', 'long_lived_reset'], ''],
  ['failed reconnects', ['long_lived_reconnect_failures'], ''],
];

/** Each run on its own, `; ` between. */
const eachRun = (line: (r: Row) => string) => (rows: readonly Row[]) => rows.map(line).join('; ');

export const ENTRY_REPORTS = {
  /** E1: the 503 count, and what the deadline bursts were made of. */
  e1: (rows: readonly Row[]): string =>
    `503: ${spread(rows, col('http_503'))}; failed ${spread(rows, failed)}; ` +
    `at the deadlines: sent before / after the drop ${spread(rows, col('deadline_failed_before_drop'))} ; ${spread(rows, col('deadline_failed_after_drop'))}, ` +
    `gateway reaction ${spread(rows, col('deadline_gateway_reaction_ms'))} ms; ` +
    `deadlines at ${rows.map((r) => s(r, 'drain_deadlines_s') || 'none').join(' | ')} s of ${String(rows[0]?.['duration_s'] ?? '?')} s; ` +
    `mechanism band ${rows.map((r) => `${s(r, 'deadline_predicted_low') || '?'}-${s(r, 'deadline_predicted_high') || '?'}`).join(' / ')}, ` +
    `inside ${String(rows.filter((r) => s(r, 'deadline_inside') === '1').length)} of ${String(rows.length)}, ` +
    `T_past ${spread(rows, col('deadline_t_past_ms'))} ms, L ${spread(rows, col('deadline_l_ms'))} ms, CPU wait ${spread(rows, col('deadline_cpu_wait_pct'))} %` +
    (rows.some((r) => s(r, 'deadline_wire_fin') !== '' && r['deadline_wire_fin'] !== undefined)
      ? `; HBONE closes on the wire FIN/RST ${rows.map((r) => `${s(r, 'deadline_wire_fin') || '-'}/${s(r, 'deadline_wire_rst') || '-'}`).join(' | ')}`
      : ''),
  /**
   * A peer's zero-downtime test (suites/peers.yaml): its figure, the success rate, then where the
   * failures were: bursts after a pod's SIGTERM (a terminating workload), calls lost at a ztunnel's
   * drain deadline (E1's mechanism), and the removal lag.
   */
  success: (rows: readonly Row[]): string =>
    `success ${spread(rows, (r) => Number((valueOf(r, 'success_rate') * 100).toFixed(2)))} %; ` +
    `failed ${spread(rows, failed)} of ${spread(rows, col('requests'))}; ` +
    `bursts ${spread(rows, col('bursts'))}, after a pod's SIGTERM ${spread(rows, col('bursts_after_sigterm'))}; ` +
    `at drain deadlines ${spread(rows, (r) => (valueOf(r, 'deadline_failed_before_drop') || 0) + (valueOf(r, 'deadline_failed_after_drop') || 0))}` +
    (spreadWhereGiven(rows, 'removal_lag_ms') === '-'
      ? ''
      : `; removal lag ${spreadWhereGiven(rows, 'removal_lag_ms')} ms`),
  /** E2: failures and bursts. */
  e2: (rows: readonly Row[]): string =>
    `${spread(rows, failed)} failed; ${spread(rows, col('bursts'))} bursts, longest ${spread(rows, col('max_burst_ms'))} ms`,
  /** E2 with the failures by kind: side by side, where ztunnels differ in how they fail. */
  'e2-classes': (rows: readonly Row[]): string =>
    `${spread(rows, failed)} failed (503 UF ${spread(rows, col('http_503_uf'))}, UC ${spread(rows, col('http_503_uc'))}, ` +
    `URX ${spread(rows, col('http_503_urx'))}, refused ${spread(rows, col('refused'))}, reset ${spread(rows, col('reset'))}, ` +
    `timeout ${spread(rows, col('timeout'))}); ${spread(rows, col('bursts'))} bursts, longest ${spread(rows, col('max_burst_ms'))} ms`,
  /** E2 mesh off: the total over many runs (the document's "zero"). */
  'e2-total': (rows: readonly Row[]): string =>
    `${String(rows.reduce((k, r) => k + failed(r), 0))} failed in ${String(rows.length)} runs of ${String(rows[0]?.['requests'] ?? '?')} requests (${rows.map(failed).join(' ')})`,
  /** E3: how the long-lived connections ended. */
  e3: eachRun(
    (r) =>
      `${s(r, 'long_lived_ended_at_deadline')}/${s(r, 'long_lived_connections')} ended at the deadline (${s(r, 'long_lived_fin')} FIN, ${s(r, 'long_lived_reset')} RST; SIGTERM + ${s(r, 'long_lived_end_offset_s')} s); ${String(failed(r))} of ${s(r, 'requests')} new connections failed; ${s(r, 'long_lived_reconnect_failures')} failed reconnects`,
  ),
  /** Any experiment, for the version matrix: the release as the binary says it, then each figure's spread. */
  versions: (rows: readonly Row[]): string =>
    [
      `${s(rows[0] ?? {}, 'ztunnel_version') || 'ours'}: failed ${spread(rows, failed)} of ${spreadWhereGiven(rows, 'requests')}`,
      ...RELEASE_FIGURES.flatMap(([label, keys, unit]) => {
        const cells = keys.map((k) => spreadWhereGiven(rows, k));
        return cells.every((c) => c === '-') ? [] : [`${label} ${cells.join(' ; ')}${unit}`];
      }),
    ].join('; '),
  /** E4: the one request's answer and when. */
  e4: eachRun((r) =>
    failed(r) === 0
      ? `200 after ${s(r, 'p50_ms')} ms`
      : `${s(r, 'reason')}: 503 ${s(r, 'http_503')} (${s(r, 'http_503_uc')} UC), reset ${s(r, 'reset')}, after ${s(r, 'p50_ms')} ms`,
  ),
  /** E5: seed 003's metrics (drain-option-metrics.ts). */
  e5: eachRun(
    (r) =>
      `errors: client ${s(r, 'client_failed')}/${s(r, 'client_requests')}, gateway ${String(failed(r))}; ` +
      `stale HBONE connections ${s(r, 'stale_hbone_connections')} (lingered up to ${s(r, 'stale_linger_max_ms')} ms, ${s(r, 'stale_open_at_end')} still open at the end); ` +
      `PINGs after the pod was gone ${s(r, 'pings_after_gone')}, ping timeouts ${s(r, 'ping_timeouts')}; ` +
      `new HBONE connections per app connection while terminating ${s(r, 'hbone_opened_while_terminating')}/${s(r, 'app_connections_while_terminating')}; ` +
      `close_notify sent ${s(r, 'close_notify_sent')}; client ztunnel CPU ${s(r, 'client_ztunnel_cpu_avg_pct')} %`,
  ),
} as const;

export type EntryReport = keyof typeof ENTRY_REPORTS;
export const ENTRY_REPORT_NAMES = Object.keys(ENTRY_REPORTS) as [EntryReport, ...EntryReport[]];
