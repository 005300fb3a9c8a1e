// the load generator -> gateway -> HBONE -> ztunnel -> httpbin (ambient, mesh-aware gateway) next to
// the generator -> gateway -> httpbin (mesh off), each run through runClusterExperiment: the very path
// `npm run experiment -- --scenario workload-rollout --qps 0 --restart-at none` takes, so the bench
// and the experiment cannot disagree by construction, only by noise.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../../lib/index.ts';
import type { ExperimentParams } from '../../options/experiment-params.ts';
import { experimentOptions } from '../../options/experiment-options.ts';
import { defaultParams } from '../../options/params.ts';
import { runClusterExperiment } from '../../run/run-cluster-experiment.ts';
import { CLUSTER_SCENARIOS } from '../../run/scenarios/index.ts';

export interface GatewayPathRow {
  path: string;
  connections: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  failed: number;
  dropped: number;
  /**
   * The gateway pod's CPU per request it served, in microseconds: its mean CPU (pilot-agent and
   * Envoy, % of one core) over the load divided by the request rate.
   */
  gatewayCpuUsPerRequest: number;
  /** Mean and max CPU, % of one core, from the run's row. */
  cpu: Record<'harness' | 'generator' | 'gateway' | 'ztunnel' | 'httpbin', { avg: number; max: number }>;
}

const PATHS = [
  { path: 'gateway -> HBONE -> ztunnel -> httpbin', mesh: 'ambient' as const },
  { path: 'gateway -> httpbin (mesh off)', mesh: 'off' as const },
];

/** The experiment a bench row runs: E2's topology at max rate, no restart, every other option at its default. */
function paramsOf(
  scenario: string,
  mesh: 'ambient' | 'off',
  connections: number,
  durationS: number,
): ExperimentParams {
  return {
    ...defaultParams(experimentOptions(), { name: scenario, defaultMaxFailed: 0 }),
    mesh,
    qps: 0,
    connections,
    durationS,
    restartAtS: undefined,
    maxFailed: 0,
  };
}

/** A bench row from the run's summary row. */
function rowOf(
  path: string,
  connections: number,
  durationS: number,
  summary: Record<string, unknown>,
): GatewayPathRow {
  const n = (name: string): number => Number(summary[name] ?? NaN);
  const cpuOf = (group: string) => ({ avg: n(`${group}_cpu_avg_pct`), max: n(`${group}_cpu_max_pct`) });
  const perSecond = n('requests') / durationS;
  return {
    path,
    connections,
    perSecond,
    gatewayCpuUsPerRequest: ((n('gateway_cpu_avg_pct') / 100) * 1e6) / perSecond,
    p50Ms: n('p50_ms'),
    p99Ms: n('p99_ms'),
    failed: n('requests') - n('ok'),
    dropped: n('dropped_iterations'),
    cpu: {
      harness: cpuOf('harness'),
      generator: cpuOf('generator'),
      gateway: cpuOf('gateway'),
      ztunnel: cpuOf('ztunnel'),
      httpbin: cpuOf('httpbin'),
    },
  };
}

export async function benchGatewayPaths(options: {
  connections: number[];
  durationS: number;
  clock: Clock;
  signal: AbortSignal;
}): Promise<GatewayPathRow[]> {
  const scenario = CLUSTER_SCENARIOS['workload-rollout'];
  if (!scenario) throw new Error('no workload-rollout scenario');
  const resultsDir = await mkdtemp(join(tmpdir(), 'bench-gw-'));
  const rows: GatewayPathRow[] = [];
  try {
    for (const p of PATHS) {
      for (const connections of options.connections) {
        const run = await runClusterExperiment({
          scenario,
          params: paramsOf(scenario.name, p.mesh, connections, options.durationS),
          resultsDir,
          clock: options.clock,
          signal: options.signal,
          write: () => undefined,
        });
        rows.push(rowOf(p.path, connections, options.durationS, run.row));
      }
    }
    return rows;
  } finally {
    await rm(resultsDir, { recursive: true, force: true });
  }
}
