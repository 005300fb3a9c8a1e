// The seed suite: every experiment of docs/architecture.md (Experiments) with its arms, the source document's
// figure next to each, and the shape rule that says whether ours matches.
import type { ExperimentFlags } from '../cli/experiment-program.ts';
import { median } from '../experiment/format-repeats.ts';

export type Row = Record<string, string | number>;

export interface SuiteEntry {
  /** E1..E5 */
  experiment: string;
  /** What this row runs, for the table. */
  configuration: string;
  /** The flags this entry sets on top of the suite's (everything else: the scenario's defaults). */
  flags: Partial<ExperimentFlags>;
  /** Repetitions when the suite is not given --repeat (the ASM table used five). */
  repeats: number;
  /** Seconds one repetition takes, roughly (load + cluster + drain), for the up-front estimate. */
  estimateS: number;
  documentFigure: string;
  /** Our figure from this entry's rows. */
  ours: (rows: Row[]) => string;
  /**
   * Whether the document's shape holds; `all` maps configuration -> rows of every entry. Absent for
   * arms the documents give no figure for (the table shows "-": a measurement, not a check).
   */
  shape?: ((rows: Row[], all: ReadonlyMap<string, Row[]>) => boolean) | undefined;
}

/** An entry the documents give no figure for: measured and shown once, not checked. */
function informational(entry: SuiteEntry): SuiteEntry {
  return { ...entry, repeats: 1, shape: undefined };
}

const n = (r: Row, k: string): number => Number(r[k]);
const failed = (r: Row): number => n(r, 'requests') - n(r, 'ok');
/** `min / median / max` of a column over repeats, or the one value. */
export function spread(rows: Row[], value: (r: Row) => number): string {
  const v = rows.map(value);
  if (v.length === 1) return String(v[0]);
  return `${String(Math.min(...v))} / ${String(median(v))} / ${String(Math.max(...v))}`;
}

const E1_C1000 = 'c=1000, 60 s, grace 30';
const E1_C100 = 'c=100, 60 s, grace 30';
const E1_G120_C1000 = 'c=1000, 200 s, grace 120';
const E1_G120_C100 = 'c=100, 200 s, grace 120';

function e1(
  configuration: string,
  flags: Partial<ExperimentFlags>,
  doc: string,
  estimateS: number,
): SuiteEntry {
  return {
    experiment: 'E1 ztunnel-upgrade',
    configuration,
    flags: { scenario: 'ztunnel-upgrade', qps: 0, ...flags },
    repeats: 5,
    estimateS,
    documentFigure: doc,
    ours: (rows) =>
      `503: ${spread(rows, (r) => n(r, 'http_503'))}; failed ${spread(rows, failed)}; ` +
      `at the deadlines: sent before / after the drop ${spread(rows, (r) => n(r, 'deadline_failed_before_drop'))} ; ${spread(rows, (r) => n(r, 'deadline_failed_after_drop'))}, ` +
      `gateway reaction ${spread(rows, (r) => n(r, 'deadline_gateway_reaction_ms'))} ms; ` +
      `deadlines at ${rows.map((r) => String(r['drain_deadlines_s']) || 'none').join(' | ')} s of ${String(rows[0]?.['duration_s'] ?? '?')} s`,
    shape: (rows, all) => {
      const m = median(rows.map(failed));
      if (m >= 10) return false; // single digits
      if (!flags.grace || flags.grace <= 30) return true;
      // Not more with the longer grace than without, at the same connections.
      const base = all.get(flags.connections === 1000 ? E1_C1000 : E1_C100);
      return base === undefined || m <= median(base.map(failed));
    },
  };
}

const E2_AMBIENT = 'ambient, 50 RPS, 3 replicas';

function e2(
  configuration: string,
  flags: Partial<ExperimentFlags>,
  doc: string,
  expectZero: boolean,
  repeats = 1,
): SuiteEntry {
  return {
    experiment: 'E2 workload-rollout',
    configuration,
    flags: { scenario: 'workload-rollout', ...flags },
    repeats,
    estimateS: 40,
    documentFigure: doc,
    ours: (rows) =>
      `${spread(rows, failed)} failed; ${spread(rows, (r) => n(r, 'bursts'))} bursts, longest ${spread(rows, (r) => n(r, 'max_burst_ms'))} ms`,
    shape: (rows) =>
      expectZero
        ? // The document's "zero" is what its runs showed; the keep-alive close race at httpbin's
          // SIGTERM (Envoy and go-httpbin have it too) costs a request in some runs, so the shape
          // holds when the typical run has none.
          median(rows.map(failed)) === 0
        : // One burst per terminating pod, each after that pod's SIGTERM.
          rows.every(
            (r) =>
              n(r, 'bursts') === n(r, 'replicas') &&
              n(r, 'bursts_after_sigterm') === n(r, 'bursts') &&
              n(r, 'max_burst_ms') <= 1000,
          ),
  };
}

function e4(
  configuration: string,
  flags: Partial<ExperimentFlags>,
  doc: string,
  expectOk: boolean,
): SuiteEntry {
  return {
    experiment: 'E4 sidecar-drain',
    configuration,
    flags: { scenario: 'sidecar-drain', ...flags },
    repeats: 1,
    estimateS: 18,
    documentFigure: doc,
    ours: (rows) =>
      rows
        .map((r) =>
          failed(r) === 0
            ? `200 after ${String(r['p50_ms'])} ms`
            : `${String(r['reason'])}: 503 ${String(r['http_503'])} (${String(r['http_503_uc'])} UC), reset ${String(r['reset'])}, after ${String(r['p50_ms'])} ms`,
        )
        .join('; '),
    shape: (rows) => rows.every((r) => (expectOk ? failed(r) === 0 && n(r, 'ok') === 1 : failed(r) >= 1)),
  };
}

/** E5's load: E2's rollout, 60 s so keepalive timeouts (10 s + 20 s) land inside the run, and a meshed client. */
const E5_FLAGS = { scenario: 'workload-rollout', duration: 60, meshClient: 20 } as const;

function e5(
  option: string,
  flags: Partial<ExperimentFlags>,
  claim: string,
  shape: (r: Row) => boolean,
): SuiteEntry {
  return {
    experiment: 'E5 drain-strategies',
    configuration: `${option} (E2 rollout, meshed client 20 RPS)`,
    flags: { ...E5_FLAGS, ...flags },
    repeats: 1,
    estimateS: 75,
    documentFigure: claim,
    ours: (rows) =>
      rows
        .map(
          (r) =>
            `errors: client ${String(r['client_failed'])}/${String(r['client_requests'])}, gateway ${String(failed(r))}; ` +
            `stale HBONE connections ${String(r['stale_hbone_connections'])} (lingered up to ${String(r['stale_linger_max_ms'])} ms, ${String(r['stale_open_at_end'])} still open at the end); ` +
            `PINGs after the pod was gone ${String(r['pings_after_gone'])}, ping timeouts ${String(r['ping_timeouts'])}; ` +
            `new HBONE connections per app connection while terminating ${String(r['hbone_opened_while_terminating'])}/${String(r['app_connections_while_terminating'])}; ` +
            `close_notify sent ${String(r['close_notify_sent'])}; client ztunnel CPU ${String(r['client_ztunnel_cpu_avg_pct'])} %`,
        )
        .join('; '),
    shape: (rows) => rows.every(shape),
  };
}

/** New HBONE connections per app connection while the server pod terminated. */
const perAppConnection = (r: Row): number =>
  n(r, 'hbone_opened_while_terminating') / Math.max(1, n(r, 'app_connections_while_terminating'));

/** The suite in run order. */
export const SEED_SUITE: SuiteEntry[] = [
  e1(E1_C1000, { connections: 1000, duration: 60 }, 'Code 503 : 5 of 289,970 (4-6 over repeats)', 75),
  e1(E1_C100, { connections: 100, duration: 60 }, 'Code 503 : 4 of 297,518 (4-6 over repeats)', 75),
  e1(
    E1_G120_C1000,
    { connections: 1000, duration: 200, grace: 120 },
    'Code 503 : 2 of 961,126 (1-2 over repeats)',
    215,
  ),
  e1(
    E1_G120_C100,
    { connections: 100, duration: 200, grace: 120 },
    'Code 503 : 1 of 960,528 (1-2 over repeats)',
    215,
  ),
  // The reading under test (issue 16): deadline 503s ~ in flight inside the old ztunnel + rate x the
  // gateway's reaction time. Light load shortens the reaction (the gateway's loop is idle between
  // events); a server-side delay keeps requests inside the old ztunnel's part of the path.
  informational(
    e1(
      'c=100, 60 s, 1000 RPS (gateway not saturated)',
      { connections: 100, duration: 60, qps: 1000 },
      'not in the document: the same deadline at a rate that leaves the gateway idle between events',
      75,
    ),
  ),
  informational(
    e1(
      'c=100, 60 s, 2000 RPS',
      { connections: 100, duration: 60, qps: 2000 },
      'not in the document: between the two',
      75,
    ),
  ),
  informational(
    e1(
      'c=100, 60 s, /delay/0.05 (50 ms inside the app)',
      { connections: 100, duration: 60, path: '/delay/0.05' },
      'not in the document: requests spend 50 ms past the old ztunnel',
      75,
    ),
  ),
  informational(
    e1(
      'c=100, 60 s, gateway plain (outside the mesh)',
      { connections: 100, duration: 60, gatewayMode: 'plain' },
      'the ASM gateway if it did not speak HBONE',
      75,
    ),
  ),
  informational(
    e1(
      'c=100, 60 s, restart at 40 s (deadline after the load)',
      { connections: 100, duration: 60, restartAt: '40' },
      'not in the document: isolates the handoff from the deadline',
      75,
    ),
  ),
  informational(
    e1(
      'c=100, 60 s, tcp_migrate_req=1',
      { connections: 100, duration: 60, tcpMigrateReq: '1' },
      'not in the document (architecture.md: likely source of the residual loss)',
      75,
    ),
  ),
  e2(E2_AMBIENT, {}, 'a 200-500 ms burst of 503 per terminating pod', false, 5),
  {
    ...e2(
      'ambient, push latency +400 ms',
      { timing: { pushLatencyMs: 650 } },
      "the report's cause: the burst lasts as long as the control plane's lag",
      false,
      5,
    ),
    // The bursts follow the control-plane lag: 400 ms more of it, at least 300 ms longer bursts.
    shape: (rows, all) => {
      const base = all.get(E2_AMBIENT);
      const longest = (r: Row): number => n(r, 'max_burst_ms');
      return (
        base !== undefined &&
        rows.every((r) => n(r, 'bursts') === n(r, 'replicas')) &&
        median(rows.map(longest)) >= median(base.map(longest)) + 300
      );
    },
  },
  {
    ...e2('mesh off', { mesh: 'off' }, 'zero 503s with ambient disabled', true, 10),
    ours: (rows) =>
      `${String(rows.reduce((k, r) => k + failed(r), 0))} failed in ${String(rows.length)} runs of ${String(rows[0]?.['requests'] ?? '?')} requests (${rows.map(failed).join(' ')})`,
  },
  e2('ambient, preStop sleep 5 s', { prestopSleep: 5 }, "the thread's workaround: no 503s", true),
  informational(
    e2(
      'ambient, retry_on +reset',
      { retryOn: 'connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes,reset' },
      'not in the document',
      false,
    ),
  ),
  informational(
    e2(
      'ambient, debounce 10 ms',
      { timing: { debounceQuietMs: 10 } },
      'not in the document (istiod PILOT_DEBOUNCE_AFTER)',
      false,
    ),
  ),
  {
    experiment: 'E3 long-lived',
    configuration: '6 long-lived + 50 new connections/s, grace 15',
    flags: { scenario: 'long-lived' },
    repeats: 1,
    estimateS: 35,
    documentFigure: 'long connections reset at grace expiry; new connections never fail',
    ours: (rows) =>
      rows
        .map(
          (r) =>
            `${String(r['long_lived_ended_at_deadline'])}/${String(r['long_lived_connections'])} ended at the deadline (${String(r['long_lived_fin'])} FIN, ${String(r['long_lived_reset'])} RST; SIGTERM + ${String(r['long_lived_end_offset_s'])} s); ${String(failed(r))} of ${String(r['requests'])} new connections failed; ${String(r['long_lived_reconnect_failures'])} failed reconnects`,
        )
        .join('; '),
    // Upstream drops them (FIN, or RST with unread bytes): ended at the deadline either way.
    shape: (rows) =>
      rows.every(
        (r) =>
          n(r, 'long_lived_ended_at_deadline') === n(r, 'long_lived_connections') &&
          failed(r) === 0 &&
          n(r, 'long_lived_reconnect_failures') === 0,
      ),
  },
  e4('default drain (terminationDrainDuration 5 s)', {}, '503 after the 5 s drain', false),
  e4('EXIT_ON_ZERO_ACTIVE_CONNECTIONS', { exitOnZeroActiveConnections: true }, '200 after 10 s', true),
  e4(
    'EXIT_ON_ZERO, grace 8 s < request',
    { exitOnZeroActiveConnections: true, grace: 8 },
    'reset when the grace period is shorter than the request',
    false,
  ),
  // seed 003 (istio/ztunnel#1191): each option does what the thread says it does, measured.
  e5(
    'option 4: do nothing (upstream)',
    {},
    'stale pooled connections until the keepalive gives up (PING 10 s, 20 s timeout), noisy ping timeouts',
    (r) =>
      n(r, 'stale_hbone_connections') > 0 && n(r, 'ping_timeouts') > 0 && n(r, 'close_notify_sent') === 0,
  ),
  e5(
    'option 1: GOAWAY at termination start (ZDS)',
    { drainStrategy: 'goaway-on-shutdown-start' },
    'no stale connections, but a new HBONE connection per app connection while the pod still serves (istio/istio#51855)',
    (r) => n(r, 'stale_hbone_connections') === 0 && perAppConnection(r) >= 0.5,
  ),
  e5(
    'option 2: drain at CNI DEL',
    { drainStrategy: 'drain-on-cni-del' },
    'GOAWAY and TLS close_notify before the network goes: no stale connections, pooling as normal until then',
    (r) =>
      n(r, 'stale_hbone_connections') === 0 &&
      n(r, 'close_notify_sent') > 0 &&
      n(r, 'ping_timeouts') === 0 &&
      perAppConnection(r) < 0.5,
  ),
  e5(
    'option 3: client pool eviction on WDS delete',
    { drainStrategy: 'evict-on-removal' },
    'stale connections dropped when discovery removes the pod, no ping timeouts; helps ztunnel clients only',
    (r) => n(r, 'ping_timeouts') === 0 && n(r, 'stale_linger_max_ms') < 10_000,
  ),
  informational(
    e5(
      'option 4 + client pool back-off',
      { poolBackoff: true },
      "the thread's favourite: keepalives plus a client-side back-off on consecutive failures",
      () => true,
    ),
  ),
];
