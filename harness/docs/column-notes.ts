/**
 * What each summary.csv / runs.csv column holds, for docs/reference.md. The columns themselves come
 * from the code (`buildSummaryRow`); an option's column is described by its entry in the option
 * table (harness/options/); a column without a note here is listed with an empty note, so a
 * new column shows up in the reference (and its staleness test) even before someone describes it.
 * A key that is no column any more is simply not printed.
 */
import { experimentOptions } from '../options/experiment-options.ts';
export const COLUMN_NOTES: Readonly<Record<string, string>> = {
  schema_version: 'the row format; bumped whenever a column is added, removed or changes meaning',
  run_id: 'the run folder name: UTC start time and scenario',
  requests: 'requests the load generator sent and the tally counted',
  ok: 'requests that succeeded (2xx, and 418 as fortio counts it)',
  http_503: 'every 503, whatever its response flags',
  other_5xx: '5xx other than 503',
  refused: 'connections refused',
  reset: 'connections reset by the peer',
  eof: 'connections closed before a response',
  timeout: 'requests past `--timeout`',
  other: 'any other failure (HTTP/2 errors included)',
  p50_ms: 'median request duration, ms',
  p99_ms: '99th percentile request duration, ms',
  bursts: 'failure bursts found (bursts.csv has one row each)',
  max_burst_ms: 'the longest burst, ms',
  verdict: 'pass, fail or aborted',
  reason: 'why: the `--max-failed` budget and each `--threshold` with the value it met',
  http_503_uf: "503s with Envoy's UF flag (upstream connection failure)",
  http_503_uc: '503s with UC (upstream connection termination)',
  http_503_urx: '503s with URX (retries exhausted)',
  http_503_uh: '503s with UH (no healthy upstream)',
  h2: 'HTTP/2 protocol errors',
  generator: 'the load generator that ran (fortio or k6)',
  generator_requests: "the load generator's own request count (checked against the tally)",
  generator_version: "the load generator's version",
  envoy_version:
    "the gateway's and the sidecar's Envoy (`envoy --version`); empty in rows from before schema 8 (the Node imitation)",
  gateway_log_requests: "requests in the gateway's access log (local backend)",
  gateway_log_failures: 'failures the gateway answered or cut, from its access log',
  gateway_log_warmup_failures:
    "the gateway's failures during the generator's warmup calls (before its first counted request), not in `requests`",
  dropped_iterations: 'iterations the generator started late or not at all (generator health)',
  generator_cpu_avg_pct: "the load generator's CPU, mean % of one core",
  generator_cpu_max_pct: "the load generator's CPU, peak % of one core",
  machine_cpu_busy_pct: 'how busy the whole machine was during the load, %',
  harness_cpu_avg_pct: "the harness process's CPU, mean % of one core over the load",
  harness_cpu_max_pct: "the harness process's CPU, max % of one core in a second",
  gateway_cpu_avg_pct: "the gateway's CPU (all its processes), mean % of one core",
  gateway_cpu_max_pct: "the gateway's CPU, max % of one core in a second",
  ztunnel_cpu_avg_pct: 'the ztunnels, mean % of one core',
  ztunnel_cpu_max_pct: 'the ztunnels, max % of one core in a second',
  harness_cpu_wait_avg_pct:
    "the harness's threads' run-queue wait (runnable, no CPU; schedstat), mean % of the time, summed over threads",
  gateway_cpu_wait_avg_pct:
    "the gateway's (pilot-agent and Envoy) run-queue wait, mean % of the time, summed over threads",
  ztunnel_cpu_wait_avg_pct: "the ztunnels' run-queue wait, mean % of the time, summed over threads",
  httpbin_cpu_wait_avg_pct: "httpbin's run-queue wait, mean % of the time, summed over threads",
  httpbin_cpu_avg_pct: 'the httpbin pods, mean % of one core',
  httpbin_cpu_max_pct: 'the httpbin pods, max % of one core in a second',
  rollout_started_s: 'when the fault (rollout restart or scale) started, seconds from load start',
  rollout_status_complete_s: "when `kubectl rollout status`'s predicate held",
  rollout_old_pods_gone_s: 'when the last old pod was gone',
  drain_deadlines_s: "the old ztunnels' drain deadlines, seconds from load start, space-separated",
  deadline_failed_before_drop: 'failures at the deadlines sent before the drop',
  deadline_failed_after_drop:
    'failures sent after the drop, onto a connection the gateway had not seen close',
  deadline_dropped_in_flight: 'connections dropped at a deadline with a request in flight inside ztunnel',
  deadline_gateway_reaction_ms: "the gateway's longest reaction time to a dropped connection, ms",
  deadline_accounted: 'E1: the failed requests attributed to the drain deadlines inside the load',
  deadline_predicted:
    "E1: the mechanism's count if each old ztunnel's close is a reset: rate on the connections it closed x (T_past + L), summed over deadlines",
  deadline_predicted_fin:
    "E1: the mechanism's count if the close is a FIN: ztunnel's own in_flight at the deadline + rate x L, summed",
  deadline_predicted_low: 'E1: the 2.5 % Poisson quantile of deadline_predicted_fin',
  deadline_predicted_high: 'E1: the 97.5 % Poisson quantile of deadline_predicted',
  deadline_inside: 'E1: 1 when deadline_accounted lies in [deadline_predicted_low, deadline_predicted_high]',
  deadline_rate_per_s: 'E1: requests per second on the connections a deadline closed, mean over deadlines',
  deadline_t_past_ms:
    "E1: T_past, the mean time a request spent past the gateway on those connections (Envoy's first byte upstream to the response's first byte), rate-weighted",
  deadline_l_ms: "E1: L, the gateway's mean delay in seeing a closed connection close, rate-weighted",
  deadline_cpu_wait_pct:
    "E1: of the runnable time of the path's processes (gateway, ztunnel, httpbin) in the second after each deadline, the share spent waiting for a CPU, %",
  deadline_projected_rate_per_s:
    "`--project-rate`: the rate the projection answers for (ASM's 4,800 req/s by default)",
  deadline_projected:
    "E1: the count this run's mechanism gives at deadline_projected_rate_per_s, every deadline's reset prediction scaled by that rate over the run's (a projection, not a measurement)",
  deadline_projected_at_1ms:
    "E1: the same with T_past + L at one millisecond at every deadline (ASM's setting)",
  deadline_reset_share:
    "E1: of the connections the old ztunnels dropped, the share riding a socket with unread bytes at the drop (rx_queue of /proc/self/net/tcp and, with --netns, each pod namespace's table, read by ztunnel as it reaches the deadline, 35-107 ms before the drop with --netns; deadline_wire_rst is the drop's own): their close() sends RST, the others get a FIN; rate-weighted over the deadlines (a connection is a tunnel: a busy HBONE socket carries many); empty unless --read-close-kinds, or where it predates the figure",
  deadline_wire_fin:
    "E1: the HBONE connections the old ztunnels' deadlines closed with a FIN, as the gateway received them: first FIN or RST from a pod's :15008 within [-100 ms, +1 s) of each deadline, captured by tcpdump on the network world's uplink (--netns or --ztunnel-impl istio-shared, with tcpdump installed); empty otherwise",
  deadline_wire_rst: 'E1: the same connections closed with a RST',
  bursts_after_sigterm: "bursts that start after their cause's SIGTERM",
  client_requests: "E5: the meshed client's requests",
  client_failed: "E5: the meshed client's failures",
  stale_hbone_connections: 'E5: pooled HBONE connections left to a pod that is gone',
  stale_linger_max_ms: 'E5: how long the longest of them lingered, ms',
  stale_open_at_end: 'E5: stale connections still open at the end',
  pings_after_gone: 'E5: HTTP/2 PINGs sent to a pod after it was gone',
  ping_timeouts: 'E5: keepalive ping timeouts',
  hbone_opened_while_terminating: 'E5: new HBONE connections opened while the pod terminated',
  app_connections_while_terminating: 'E5: app connections made while the pod terminated',
  close_notify_sent: 'E5: TLS close_notify sent on HBONE connections',
  client_ztunnel_cpu_avg_pct: "E5: the client node's ztunnel CPU, mean % of one core",
  started_at: 'wall-clock start, ISO 8601 UTC',
  git_sha: 'the code that ran (`git rev-parse --short HEAD`)',
  nodes: "the cluster's nodes",
  timing_model: 'modelled (local: the `timing_*` columns say how) or measured (kind)',
  ztunnel_mode: 'in-pod (local, as istio-cni) or node-address (kind)',
  ingress_path:
    "how the generator's connections reach the gateway: direct (local) or docker-proxy+nodeport (kind: Docker's userland proxy on the host port, then kube-proxy's NodePort DNAT/SNAT to a worker)",
  address_block: "local: the cluster's 127.B.0.0/16 block",
  istio_shared_ca:
    "local, --ztunnel-impl istio-shared: where istio/ztunnel's binary got its workload certificates: istiod (our CA over gRPC, CreateCertificate) or fake (FAKE_CA, minted in the binary); empty otherwise (schema 12; older rows: empty, and their istio-shared rows ran fake)",
  kind_cluster: 'kind: the cluster name',
  kind_version: 'kind: `kind version`',
  docker_server_version: "kind: the Docker engine's version",
  kubernetes_version: "kind: the API server's version",
  long_lived_connections: 'E3: long-lived connections opened',
  long_lived_fin: 'E3: of them, ended by a FIN',
  long_lived_reset: 'E3: of them, ended by a RST',
  long_lived_ended_at_deadline: "E3: of them, ended at their node's ztunnel drain deadline",
  long_lived_end_offset_s: "E3: when each ended, seconds after its node's ztunnel SIGTERM",
  long_lived_reconnects: 'E3: reconnects after an end',
  long_lived_reconnect_failures: 'E3: reconnects that failed',
};

/** Notes for the timing-model columns, one per `--timing` name. */
/** An option's column: its flag (arms say so), then the table's note. */
function optionColumnNote(column: string): string | undefined {
  const spec = experimentOptions().find((o) => o.column?.name === column);
  if (!spec?.column) return undefined;
  const flag = spec.short ? `${spec.short}/--${spec.key}` : `--${spec.key}`;
  return `${spec.param?.startsWith('arms.') ? 'arm ' : ''}\`${flag}\`${spec.column.note ?? ''}`;
}

export function columnNote(column: string): string {
  const note = COLUMN_NOTES[column] ?? optionColumnNote(column);
  if (note !== undefined) return note;
  if (column.startsWith('timing_'))
    return `local: the timing model's \`${column.slice(7)}\`, ms (\`--timing\`)`;
  return '';
}
