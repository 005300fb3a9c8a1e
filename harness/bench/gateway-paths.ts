// k6 -> gateway -> HBONE -> ztunnel -> httpbin (ambient, mesh-aware gateway) next to
// k6 -> gateway -> httpbin (mesh off), each run through runClusterExperiment: the very path
// `npm run experiment -- --scenario workload-rollout --qps 0 --restart-at none` takes, so the bench
// and the experiment cannot disagree by construction, only by noise.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../lib/index.ts';
import { GATEWAY_DEFAULT_CONCURRENCY } from '../../clusters/manifests/index.ts';
import type { ExperimentParams } from '../experiment/experiment-params.ts';
import { DEFAULT_ARMS } from '../experiment/mitigation-arms.ts';
import { runClusterExperiment } from '../experiment/run-cluster-experiment.ts';
import { CLUSTER_SCENARIOS } from '../scenarios/index.ts';

export interface GatewayPathRow {
  path: string;
  connections: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  failed: number;
  dropped: number;
  /** Mean and max CPU, % of one core, from the run's row. */
  cpu: Record<'harness' | 'k6' | 'gateway' | 'ztunnel' | 'httpbin', { avg: number; max: number }>;
}

const PATHS = [
  { path: 'gateway -> HBONE -> ztunnel -> httpbin', mesh: 'ambient' as const },
  { path: 'gateway -> httpbin (mesh off)', mesh: 'off' as const },
];

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
        const params: ExperimentParams = {
          scenario: scenario.name,
          backend: 'local',
          mesh: p.mesh,
          graceS: 30,
          qps: 0,
          connections,
          durationS: options.durationS,
          timeoutS: 10,
          path: '/status/418',
          restartAtS: undefined,
          replicas: 3,
          gatewayConcurrency: GATEWAY_DEFAULT_CONCURRENCY,
          gatewayMode: 'hbone',
          meshClientRps: 0,
          maxFailed: 0,
          thresholds: [],
          k6Out: [],
          timing: {},
          arms: DEFAULT_ARMS,
        };
        const run = await runClusterExperiment({
          scenario,
          params,
          resultsDir,
          clock: options.clock,
          signal: options.signal,
          write: () => undefined,
        });
        const n = (name: string): number => Number(run.row[name] ?? NaN);
        const cpuOf = (group: string) => ({
          avg: n(`${group}_cpu_avg_pct`),
          max: n(`${group}_cpu_max_pct`),
        });
        rows.push({
          path: p.path,
          connections,
          perSecond: n('requests') / options.durationS,
          p50Ms: n('p50_ms'),
          p99Ms: n('p99_ms'),
          failed: n('requests') - n('ok'),
          dropped: n('dropped_iterations'),
          cpu: {
            harness: cpuOf('harness'),
            k6: { avg: n('k6_cpu_avg_pct'), max: n('k6_cpu_max_pct') },
            gateway: cpuOf('gateway'),
            ztunnel: cpuOf('ztunnel'),
            httpbin: cpuOf('httpbin'),
          },
        });
      }
    }
    return rows;
  } finally {
    await rm(resultsDir, { recursive: true, force: true });
  }
}
