import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { ExperimentFlags } from '../cli/experiment-program.ts';
import { buildExperimentProgram } from '../cli/experiment-program.ts';
import type { ExperimentParams } from '../experiment/experiment-params.ts';
import { optionTable } from './option-table.ts';

/** The experiment file every run folder holds: what `--from <run dir>` re-runs. */
export const RUN_CONFIG_FILE = 'experiment.yaml';

/**
 * The flags that give exactly these parameters, every one explicit (no scenario or CLI default
 * left to fill in, so a later change of a default does not change a re-run).
 */
export function paramsToFlags(p: ExperimentParams): Partial<ExperimentFlags> {
  const { arms } = p;
  return {
    scenario: p.scenario as ExperimentFlags['scenario'],
    backend: p.backend,
    generator: p.generator,
    mesh: p.mesh,
    grace: p.graceS,
    qps: p.qps,
    connections: p.connections,
    duration: p.durationS,
    timeout: p.timeoutS,
    path: p.path,
    restartAt: p.restartAtS === undefined ? 'none' : String(p.restartAtS),
    replicas: p.replicas,
    gatewayConcurrency: p.gatewayConcurrency,
    gatewayMode: p.gatewayMode,
    meshClient: p.meshClientRps,
    projectRate: p.projectRatePerS,
    maxFailed: p.maxFailed,
    threshold: p.thresholds,
    k6Out: p.k6Out,
    timing: p.timing,
    prestopSleep: arms.preStopSleepS,
    retryOn: arms.retryOn,
    maxConnectionDuration: arms.maxConnectionDurationS,
    hboneIdleTimeout: arms.hboneIdleTimeoutS,
    drainStrategy: arms.drainStrategy,
    poolBackoff: arms.poolBackoff,
    tcpMigrateReq: arms.tcpMigrateReq === 1 ? '1' : '0',
    exitOnZeroActiveConnections: arms.exitOnZeroActiveConnections,
    cpuIsolation: arms.cpuIsolation,
    ztunnelImpl: p.ztunnelImpl,
    netns: p.podNetwork === 'netns' && p.ztunnelImpl !== 'istio',
  };
}

/** The parameters as an experiment file's text (keys are the long flag names). */
export function formatRunConfig(params: ExperimentParams, runDir: string): string {
  const flags = paramsToFlags(params) as Record<string, unknown>;
  // A restart time reads as the number it is (the flag's type is a string for "none").
  const value = (attribute: string): unknown =>
    attribute === 'restartAt' && flags[attribute] !== 'none' ? Number(flags[attribute]) : flags[attribute];
  const entries = optionTable(buildExperimentProgram()).flatMap((o) =>
    flags[o.attribute] === undefined ? [] : [[o.key, value(o.attribute)] as const],
  );
  return (
    `# The experiment of this run, every option explicit. Re-run it:\n` +
    `#   npm run experiment -- --from ${runDir}\n` +
    stringify(Object.fromEntries(entries))
  );
}

export async function writeRunConfig(runDir: string, params: ExperimentParams): Promise<void> {
  await writeFile(join(runDir, RUN_CONFIG_FILE), formatRunConfig(params, runDir));
}
