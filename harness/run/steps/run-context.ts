import type { RolloutResult } from '../../../clusters/backend.ts';
import type { ClusterBackend } from '../../../clusters/backend.ts';
import type { BackendProvider } from '../../../clusters/provider.ts';
import type { Clock } from '../../../lib/index.ts';
import type { LoadResult } from '../../load/index.ts';
import type { CpuReport } from '../../observe/cpu-monitor.ts';
import type { MetricsScraper, Scrape } from '../../observe/metrics-scraper.ts';
import type { RecordTally } from '../../tally/index.ts';
import type { LoadGenerator } from '../../provision/index.ts';
import type { Provenance } from '../../config/provenance.ts';
import type { ClusterScenario, CompanionResult } from '../cluster-scenario.ts';
import type { ExperimentParams } from '../../options/experiment-params.ts';

/** What the caller asks for: one run of a scenario with these parameters. */
export interface RunRequest {
  scenario: ClusterScenario;
  params: ExperimentParams;
  resultsDir: string;
  clock: Clock;
  signal: AbortSignal;
  write: (text: string) => void;
  /** The backend's own options (its provider's `options`), by key: `{'kind-ingress-port': 18080}`. */
  backendSettings?: Readonly<Record<string, unknown>>;
}

/** The plan step's result: where the run goes and with what, before anything starts. */
export interface RunPlan extends RunRequest {
  /** The backend's provider, resolved once from params.backend: its capabilities, its profile. */
  provider: BackendProvider;
  /** The cluster, created once (nothing started) and preflighted; the observe step brings it up. */
  backend: ClusterBackend;
  /** The load generator chosen for this run (--generator) and why. */
  generator: LoadGenerator;
  /** The Envoy the gateway and sidecar run (local: ensured in the plan step; kind: the image's). */
  envoy: { path: string; version: string };
  /** What the run ran on (provenance.json); the summary row's git sha comes from it. */
  provenance: Provenance;
  runId: string;
  runDir: string;
  startedAtWallMs: number;
  /** k6 runs: the script, bundled before the load (its cost is not the load's). */
  k6Script?: string;
}

/** What the run observed (each part absent when it stopped before getting there). */
export interface Observation {
  backend: ClusterBackend;
  loadStartMs: number;
  load?: LoadResult;
  tally?: RecordTally;
  cpu?: CpuReport;
  metrics?: Scrape[];
  /** Started with a baseline scrape before the load; stopped when k6 exits. */
  scraper?: MetricsScraper;
  rollout?: RolloutResult;
  rolloutStartedMs?: number;
  companion?: CompanionResult;
  /** Why the run stopped early ('' when it did not). */
  abortReason: string;
  /** The run's signal: the caller's, or a component failure. */
  signal: AbortSignal;
}

/** The message an aborted signal carries (Ctrl-C, a component failure, a crash). */
export function abortReasonOf(signal: AbortSignal): string {
  return String((signal.reason as Error | undefined)?.message ?? signal.reason);
}
