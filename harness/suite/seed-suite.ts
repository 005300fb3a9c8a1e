// The seed suite: every experiment of design.md section 8 with its arms, the source document's
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
    ours: (rows) => `503: ${spread(rows, (r) => n(r, 'http_503'))}; failed ${spread(rows, failed)}`,
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
): SuiteEntry {
  return {
    experiment: 'E2 workload-rollout',
    configuration,
    flags: { scenario: 'workload-rollout', ...flags },
    repeats: 1,
    estimateS: 40,
    documentFigure: doc,
    ours: (rows) =>
      `${spread(rows, failed)} failed; ${spread(rows, (r) => n(r, 'bursts'))} bursts, longest ${spread(rows, (r) => n(r, 'max_burst_ms'))} ms`,
    shape: (rows) =>
      expectZero
        ? rows.every((r) => failed(r) === 0)
        : rows.every((r) => n(r, 'bursts') === n(r, 'replicas') && n(r, 'max_burst_ms') <= 1000),
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

function e5(strategy: 'none' | 'goaway-on-unhealthy' | 'evict-on-removal'): SuiteEntry {
  return {
    experiment: 'E5 drain-strategies',
    configuration: `drain ${strategy} (E2 load)`,
    flags: { scenario: 'workload-rollout', drainStrategy: strategy },
    repeats: 1,
    estimateS: 40,
    documentFigure:
      'design discussion: errors, stale pooled connections, new HBONE connections per app connection',
    ours: (rows) =>
      `${spread(rows, failed)} failed (${spread(rows, (r) => n(r, 'http_503_uf'))} UF, ${spread(rows, (r) => n(r, 'http_503_uc'))} UC); ${spread(rows, (r) => n(r, 'bursts'))} bursts`,
    shape: (rows) => rows.length > 0,
  };
}

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
      'not in the document (design.md: likely source of the residual loss)',
      75,
    ),
  ),
  e2(E2_AMBIENT, {}, 'a 200-500 ms burst of 503 per terminating pod', false),
  e2('mesh off', { mesh: 'off' }, 'zero 503s with ambient disabled', true),
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
            `${String(r['long_lived_reset_at_deadline'])}/${String(r['long_lived_connections'])} reset at the deadline (SIGTERM + ${String(r['long_lived_reset_offset_s'])} s); ${String(failed(r))} of ${String(r['requests'])} new connections failed; ${String(r['long_lived_reconnect_failures'])} failed reconnects`,
        )
        .join('; '),
    shape: (rows) =>
      rows.every(
        (r) =>
          n(r, 'long_lived_reset_at_deadline') === n(r, 'long_lived_connections') &&
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
  e5('none'),
  e5('goaway-on-unhealthy'),
  e5('evict-on-removal'),
];
