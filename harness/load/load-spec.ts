/** What load to drive, in fortio's terms. Validated by the CLI before anything starts. */
export interface LoadSpec {
  /** URLs, taken in turn by iteration number (one URL is the fortio case). */
  targets: string[];
  /** Requests per second; 0 = as fast as `connections` go (fortio `-qps 0`). */
  qps: number;
  /** Connections (k6 VUs, each with its own keep-alive connection): fortio `-c`. */
  connections: number;
  durationS: number;
  /** Per-request timeout (fortio `-timeout`, 10 s in the ASM runs). */
  timeoutS: number;
  /** Response header whose value is recorded per request (a gateway's response flags). */
  flagHeader?: string;
  /**
   * Per-request records (default on). Off only in the benchmark that measures their cost: without
   * them nothing is tallied or reconciled.
   */
  records?: boolean;
  /** A new TCP connection for every request (k6 noConnectionReuse): connection-level scenarios. */
  newConnectionPerRequest?: boolean;
  /**
   * A call late for its slot does not make the next ones come sooner (fortio `-nocatchup`; k6's
   * arrival rate drops the iterations it cannot start): Istio's traffic generator waits its interval
   * after each call returns and never bursts to catch up.
   */
  noCatchUp?: boolean;
  /**
   * Exactly this many calls in all, then stop (fortio `-n`, which also makes no warm-up call; k6's
   * shared-iterations): E4's single request, as the document's `curl` made it. `durationS` then
   * only bounds k6's run.
   */
  exactCalls?: number;
  /** k6 outputs, each passed as `--out` (e.g. `json=run.json`, `web-dashboard=export=k6.html`). */
  outputs?: string[];
}

/** The LOAD_* variables k6-scripts/lib/load-env.ts reads. */
export function toK6Env(spec: LoadSpec): Record<string, string> {
  return {
    LOAD_TARGETS: spec.targets.join(','),
    LOAD_QPS: String(spec.qps),
    LOAD_CONNECTIONS: String(spec.connections),
    LOAD_DURATION_S: String(spec.durationS),
    LOAD_TIMEOUT_S: String(spec.timeoutS),
    LOAD_FLAG_HEADER: spec.flagHeader ?? '',
    LOAD_RECORDS: spec.records === false ? '0' : '1',
    LOAD_NEW_CONNECTIONS: spec.newConnectionPerRequest ? '1' : '0',
    LOAD_ITERATIONS: String(spec.exactCalls ?? 0),
  };
}
