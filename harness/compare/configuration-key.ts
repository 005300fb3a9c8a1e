import { COUNT_COLUMNS, LATENCY_COLUMNS } from './read-runs.ts';
import type { RunRow } from './read-runs.ts';

/**
 * Columns that are outcomes or bookkeeping of a run, not its configuration. Every other column
 * (scenario, backend, mesh, load shape, grace, arms, timing model, nodes, ...) is a parameter, so a
 * parameter added later splits configurations rather than being silently ignored.
 */
const NOT_PARAMETERS = new Set<string>([
  ...COUNT_COLUMNS,
  ...LATENCY_COLUMNS,
  'schema_version',
  'run_id',
  'bursts',
  'max_burst_ms',
  'verdict',
  'reason',
  'http_503_uf',
  'http_503_uc',
  'http_503_urx',
  'http_503_uh',
  'h2',
  'max_failed',
  'k6_http_reqs',
  'generator_requests',
  'dropped_iterations',
  'generator_retried',
  'k6_cpu_avg_pct',
  'k6_cpu_max_pct',
  'generator_cpu_avg_pct',
  'generator_cpu_max_pct',
  'machine_cpu_busy_pct',
  'rollout_started_s',
  'rollout_status_complete_s',
  'rollout_old_pods_gone_s',
  'started_at',
  'git_sha',
  'k6_version',
  'generator_version',
  // The local backend's loopback block and the kind cluster's name: where, not how.
  'address_block',
  'kind_cluster',
  // Follow from `backend` (clusters/backend-columns.ts); rows before schema 4 do not have them.
  'timing_model',
  'ztunnel_mode',
  'ingress_path',
  // The environment's versions, as k6_version.
  'kind_version',
  'docker_server_version',
  'kubernetes_version',
]);

export interface Configuration {
  key: string;
  /** name=value of every parameter, in column order. */
  parameters: [string, string][];
}

/** E5's measurements (summary-row.ts drainOptionColumns). */
const E5_MEASURES = new Set([
  'client_requests',
  'client_failed',
  'stale_hbone_connections',
  'stale_linger_max_ms',
  'stale_open_at_end',
  'pings_after_gone',
  'ping_timeouts',
  'hbone_opened_while_terminating',
  'app_connections_while_terminating',
  'close_notify_sent',
  'client_ztunnel_cpu_avg_pct',
]);

/**
 * Measured, not set: per-component CPU (`gateway_cpu_avg_pct`, ...), the gateway access log's
 * totals, where the drain deadlines fell and what their bursts were made of.
 */
const isMeasured = (name: string): boolean =>
  /_cpu_(avg|max|wait_avg)_pct$/.test(name) ||
  name.startsWith('gateway_log_') ||
  name.startsWith('deadline_') ||
  name === 'bursts_after_sigterm' ||
  E5_MEASURES.has(name) ||
  name === 'drain_deadlines_s';

/**
 * Parameters added after the first schema, with the value every older row ran with: a row holding
 * that value keys as an older row without the column does (schema 5: ztunnel_impl; 6: pod_network).
 */
const ADDED_WITH_DEFAULT: Readonly<Record<string, string>> = {
  ztunnel_impl: 'ours',
  pod_network: 'loopback',
  // Schema 7: every older row's load came from k6.
  generator: 'k6',
  // Schema 8: older rows ran the Node imitation of Envoy, no Envoy at all (''); a row of the real
  // Envoy (1.40.0) is another gateway, so it does not key with them.
  envoy_version: '',
  // Schema 8 too: every older row ran without CPU isolation.
  cpu_isolation: 'none',
};

export function configurationOf(row: RunRow): Configuration {
  const parameters = Object.entries(row.values).filter(
    ([name, value]) => !NOT_PARAMETERS.has(name) && !isMeasured(name) && ADDED_WITH_DEFAULT[name] !== value,
  );
  return { key: parameters.map(([k, v]) => `${k}=${v}`).join('\u0000'), parameters };
}

/** Rows grouped by configuration, in first-seen order. */
export function groupByConfiguration(
  rows: readonly RunRow[],
): Map<string, { configuration: Configuration; rows: RunRow[] }> {
  const groups = new Map<string, { configuration: Configuration; rows: RunRow[] }>();
  for (const row of rows) {
    const configuration = configurationOf(row);
    const group = groups.get(configuration.key) ?? { configuration, rows: [] };
    group.rows.push(row);
    groups.set(configuration.key, group);
  }
  return groups;
}

/**
 * What tells two configurations apart in a table: the scenario plus every parameter whose value
 * differs between configurations of that scenario (the rest is common and would be noise).
 */
export function labelConfigurations(configurations: readonly Configuration[]): Map<string, string> {
  const labels = new Map<string, string>();
  for (const c of configurations) {
    const scenario = c.parameters.find(([k]) => k === 'scenario')?.[1] ?? '?';
    const siblings = configurations.filter(
      (o) => o.parameters.find(([k]) => k === 'scenario')?.[1] === scenario,
    );
    const varying = c.parameters.filter(
      ([k, v]) => k !== 'scenario' && siblings.some((o) => o.parameters.find(([ok]) => ok === k)?.[1] !== v),
    );
    labels.set(c.key, [scenario, ...varying.map(([k, v]) => `${k}=${v}`)].join(' '));
  }
  return labels;
}
