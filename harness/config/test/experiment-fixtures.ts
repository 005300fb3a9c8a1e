// Shared by the tests of experiment files and suite files.
import assert from 'node:assert/strict';
import { buildExperimentProgram, CLUSTER_SCENARIOS, paramsFromFlags } from '../../cli/experiment-program.ts';
import type { ExperimentFlags } from '../../cli/experiment-program.ts';
import type { ExperimentParams } from '../../options/experiment-params.ts';
import { EXAMPLE_ARMS } from '../../options/arms.ts';
import { ASM_E1_RATE_PER_S } from '../../explain/deadline-accounting.ts';
import { expandExperimentFile } from '../../cli/experiment-file.ts';

/** What `npm run experiment` resolves from a command line, without running anything. */
export async function resolve(argv: string[]): Promise<ExperimentParams> {
  const program = buildExperimentProgram().configureOutput({
    writeErr: () => undefined,
    writeOut: () => undefined,
  });
  const flags = program.parse(await expandExperimentFile(argv), { from: 'user' }).opts<ExperimentFlags>();
  const scenario = CLUSTER_SCENARIOS[flags.scenario];
  assert.ok(scenario, flags.scenario);
  return paramsFromFlags(program, flags, scenario);
}

/** Every field different from its default, so a field dropped anywhere shows. */
export const EVERY_FIELD: ExperimentParams = {
  scenario: 'workload-rollout',
  backend: 'local',
  generator: 'k6',
  mesh: 'ambient',
  graceS: 45,
  qps: 123.5,
  connections: 17,
  durationS: 42,
  timeoutS: 2.5,
  path: '/delay/0.05',
  restartAtS: 11,
  replicas: 2,
  gatewayConcurrency: 3,
  gatewayMode: 'plain',
  meshClientRps: 7,
  projectRatePerS: 20_000,
  maxFailed: 99,
  thresholds: ['p99_ms<500', 'failed_rate<1e-4'],
  k6Out: ['json=k6.json', 'web-dashboard=export=k6.html'],
  timing: { pushLatencyMs: 400, debounceQuietMs: 10 },
  arms: EXAMPLE_ARMS,
  ztunnelImpl: 'istio',
  ztunnelBinary: '/opt/istio/ztunnel',
  podNetwork: 'netns',
  loadFrom: 'host',
  // node-address is kind's alone (the local backend refuses it), as --load-from cluster is.
  ztunnelMode: 'in-pod',
  appShutdown: 'immediate',
  appIdleTimeoutS: 5,
  // Only with the scenarios whose fault restarts ztunnel; this one rolls httpbin.
  ztunnelUpdate: 'surge',
};

/**
 * EVERY_FIELD as a run can have it: the options its scenario (workload-rollout) does not read
 * (their `scenarios` in the table: --project-rate, --exit-on-zero-active-connections) at their
 * defaults, since given they are refused; SCOPED_RUNS carries each to a scenario that reads it.
 */
export const EVERY_RUNNABLE_FIELD: ExperimentParams = {
  ...EVERY_FIELD,
  projectRatePerS: ASM_E1_RATE_PER_S,
  arms: { ...EXAMPLE_ARMS, exitOnZeroActiveConnections: false },
};

/** Each scenario-scoped option away from its default, with a scenario that reads it. */
export const SCOPED_RUNS: readonly string[][] = [
  ['--scenario', 'ztunnel-upgrade', '--project-rate', '20000'],
  ['--scenario', 'sidecar-drain', '--exit-on-zero-active-connections', '--prestop-sleep', '5'],
];
