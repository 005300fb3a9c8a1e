/**
 * The files a run writes, for docs/reference.md. Each names the source file that writes it; the
 * reference's test checks that the writer still names the file (a rename or a move fails it, saying
 * to update this list).
 */
export interface RunFolderFile {
  /** Relative to the run folder (`<results-dir>/<run id>/`), or `../runs.csv` for the results folder's. */
  path: string;
  /** The source file (from the repository root) in which the file's name appears. */
  writtenBy: string;
  holds: string;
}

export const RUN_FOLDER_FILES: readonly RunFolderFile[] = [
  {
    path: 'summary.csv',
    writtenBy: 'harness/run/steps/write-run.ts',
    holds: "one row: the columns below, then the scenario's own columns (E3's `long_lived_*`)",
  },
  {
    path: '../runs.csv',
    writtenBy: 'harness/run/steps/write-run.ts',
    holds:
      "the summary row appended for every run (the columns below, without a scenario's own); a results folder whose header differs is refused before the run",
  },
  {
    path: 'experiment.yaml',
    writtenBy: 'harness/config/run-config.ts',
    holds: "the run's options, all explicit: `--from <run folder>` runs it again",
  },
  {
    path: 'provenance.json',
    writtenBy: 'harness/config/provenance.ts',
    holds:
      'the command line, git sha and whether the tree had changes, tool versions, CPU, memory, kernel, stray `K6_*` variables',
  },
  {
    path: 'events.csv',
    writtenBy: 'harness/run/steps/write-run.ts',
    holds:
      'lifecycle events in seconds from load start: `t_s`, `wall`, `kind`, `source`, `object`, `node`, `detail`',
  },
  {
    path: 'timeline.csv',
    writtenBy: 'harness/run/steps/write-run.ts',
    holds: '100 ms buckets by request start, one column per outcome class',
  },
  {
    path: 'timeline-by-end.csv',
    writtenBy: 'harness/run/steps/write-run.ts',
    holds: 'the same by completion time',
  },
  {
    path: 'latency.csv',
    writtenBy: 'harness/run/steps/write-run.ts',
    holds: 'per 100 ms bucket: `requests`, `p50_ms`, `p99_ms`',
  },
  {
    path: 'bursts.csv',
    writtenBy: 'harness/run/steps/write-run.ts',
    holds:
      'one row per burst: start, length, failures, cause, mechanism and its figures, the printed explanation',
  },
  {
    path: 'zoom.csv',
    writtenBy: 'harness/run/steps/write-run.ts',
    holds: '10 ms buckets from a second before each burst to a second after it',
  },
  {
    path: 'gateway-failures.csv',
    writtenBy: 'harness/run/steps/write-run.ts',
    holds:
      "the gateway's failures by Envoy's evidence (local backend): `failures`, `status`, `flags`, `meaning`, `details` (%RESPONSE_CODE_DETAILS%), `tunnel_reason` (the failed HBONE tunnel's)",
  },
  {
    path: 'envoy-counters.csv',
    writtenBy: 'harness/run/steps/write-run.ts',
    holds:
      "Envoy's upstream counters on the gateway's service and connect_originate clusters between its first and last scrape: `cluster`, `counter`, `first`, `last`, `delta` (local backend)",
  },
  {
    path: 'deadlines.csv',
    writtenBy: 'harness/run/steps/write-run.ts',
    holds:
      'E1: each drain deadline inside the load accounted for: `lost`, `predicted_reset` (rate x (T_past + L)), `predicted_fin` (in_flight + rate x L), `band_low`/`band_high`, `inside`, `closed_connections`, `rate_per_s`, `t_past_ms`, `l_ms`, `in_flight_inside`, `cpu_wait_pct` (local backend), `reset_share`/`in_flight_on_fin` (--read-close-kinds), `wire_fin`/`wire_rst` (the HBONE closes captured on the wire, pods in namespaces with tcpdump)',
  },
  {
    path: 'deadline-trace.csv',
    writtenBy: 'harness/run/steps/write-run.ts',
    holds:
      "E1: each deadline's node in 100 ms buckets from 2 s before to 1 s after it: `requests`, `failed`, `t_past_ms` (the report's deadline plots)",
  },

  {
    path: 'cpu.csv',
    writtenBy: 'harness/run/steps/write-run.ts',
    holds:
      "each component's CPU every second: `t_s`, `component`, `group`, `cpu_pct` (% of one core), `run_queue_wait_pct` (its threads' time runnable but waiting for a CPU, schedstat)",
  },
  {
    path: 'fortio.json',
    writtenBy: 'harness/run/steps/write-run.ts',
    holds: "the load as fortio's result (histogram, percentiles), for `fortio report`",
  },
  {
    path: 'metrics.om',
    writtenBy: 'harness/run/steps/write-run.ts',
    holds: "every ztunnel's and the gateway's metrics, scraped every 5 s (OpenMetrics text; local backend)",
  },
  {
    path: 'junit.xml',
    writtenBy: 'harness/run/steps/write-ci-reports.ts',
    holds: 'a test case per threshold, `--max-failed` first',
  },
  {
    path: 'report.html',
    writtenBy: 'harness/record/report/write-run-report.ts',
    holds:
      "the self-contained report: timeline, drain windows, events, totals, bursts, the gateway's failures in Envoy's words, parameters",
  },
  {
    path: 'timeline.svg',
    writtenBy: 'harness/record/report/write-run-report.ts',
    holds: "the report's main plot on its own",
  },
  {
    path: 'calibration.csv',
    writtenBy: 'harness/run/checks/calibrate.ts',
    holds: "`calibrate` only: `outcome`, `expected`, `got` (the count derived from the generator's own)",
  },
  {
    path: 'fortio/access.jsonl',
    writtenBy: 'harness/load/run-fortio.ts',
    holds: "fortio's access log, one JSON line per request (what the tally reads)",
  },
  {
    path: 'fortio/fortio.json',
    writtenBy: 'harness/load/run-fortio.ts',
    holds: "fortio's own JSON result (`-json`), which `fortio report` reads",
  },
  {
    path: 'fortio/fortio.log',
    writtenBy: 'harness/load/run-fortio.ts',
    holds:
      "fortio's stdout and stderr (its log and its own summary), each line shape's repeats past the first 20 left out and counted in a closing `harness: N more lines of this shape` line (a refused port at full speed is one line per call); the records' error kinds are read from every line",
  },
  {
    path: 'verdict.json',
    writtenBy: 'harness/run/checks/command-verdict.ts',
    holds:
      '`calibrate` and `load-smoke`: `command`, `verdict` (pass, fail, or aborted when it could not finish) and `reason`',
  },
  {
    path: 'k6/requests.csv',
    writtenBy: 'harness/load/run-k6.ts',
    holds:
      'with k6: one line per request from the script (`start_ms,duration_ms,status,error_code,flag,error`)',
  },
  {
    path: 'k6/k6-summary.json',
    writtenBy: 'harness/load/run-k6.ts',
    holds: "with k6: k6's end-of-test summary",
  },
  { path: 'k6/k6.log', writtenBy: 'harness/load/run-k6.ts', holds: "with k6: k6's log" },
  { path: 'k6/k6-stdout.txt', writtenBy: 'harness/load/run-k6.ts', holds: "with k6: k6's stdout" },
  {
    path: 'k6/load.js',
    writtenBy: 'harness/load/run-load.ts',
    holds: 'with k6: the bundled k6 script that ran',
  },
  {
    path: 'pods/',
    writtenBy: 'harness/run/steps/plan-run.ts',
    holds: "every container's log (the gateway's access log is in its pod's)",
  },
  {
    path: 'pods/wire_hbone-closes.log',
    writtenBy: 'clusters/netns/wire-closes.ts',
    holds:
      "pods in network namespaces, with tcpdump installed: every FIN and RST sent from a pod's :15008 to the host (tcpdump -tt on the network world's uplink), what the deadlines' wire_fin/wire_rst count",
  },
];
