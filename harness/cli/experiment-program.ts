import { Command, Option } from 'commander';
import { TIMING_MODEL_KEYS } from '../../clusters/local/index.ts';
import { badInput } from '../../lib/index.ts';
import { GATEWAY_DEFAULT_CONCURRENCY } from '../../clusters/manifests/index.ts';
import { parseRetryPolicy } from '../../mesh/gateway/retry-policy.ts';
import { DRAIN_STRATEGIES } from '../../ztunnel/drain-strategy.ts';
import type { DrainStrategy } from '../../ztunnel/drain-strategy.ts';
import type { ClusterScenario, ScenarioDefaults } from '../experiment/cluster-scenario.ts';
import type { ExperimentParams } from '../experiment/experiment-params.ts';
import { DEFAULT_ARMS } from '../experiment/mitigation-arms.ts';
import { DEFAULT_RESULTS_DIR } from '../paths.ts';
import { CLUSTER_SCENARIOS, SCENARIO_NAMES, SUITES } from '../scenarios/index.ts';
import type { ScenarioName } from '../scenarios/index.ts';
import { choiceParser, numberParser, pathParser, timingParser } from './parse-values.ts';

export interface ExperimentFlags {
  scenario: ScenarioName;
  suite?: (typeof SUITES)[number];
  /** Already expanded into the arguments (config/experiment-file.ts); kept for --help. */
  config?: string;
  from?: string;
  backend: 'local' | 'kind';
  grace: number;
  qps: number;
  connections: number;
  duration: number;
  timeout: number;
  path: string;
  restartAt?: string;
  replicas: number;
  gatewayConcurrency: number;
  gatewayMode: 'hbone' | 'plain';
  meshClient: number;
  poolBackoff: boolean;
  mesh: 'ambient' | 'off';
  maxFailed?: number;
  repeat?: number;
  timing?: Record<string, number>;
  resultsDir: string;
  prestopSleep: number;
  retryOn: string;
  maxConnectionDuration: number;
  hboneIdleTimeout: number;
  drainStrategy: DrainStrategy;
  tcpMigrateReq: '0' | '1';
  exitOnZeroActiveConnections: boolean;
  kindIngressPort: number;
  keepCluster: boolean;
}

function retryOnParser(raw: string): string {
  try {
    parseRetryPolicy({ numRetries: 2, retryOn: raw });
  } catch (err) {
    throw badInput(
      '--retry-on',
      'a comma-separated list of Envoy retry_on conditions',
      raw,
      (err as Error).message,
    );
  }
  return raw;
}

export function buildExperimentProgram(): Command {
  const seconds = (flag: string) => numberParser(flag, { min: 0, max: 86_400, unit: 'seconds' });
  return new Command('experiment')
    .description(
      'Drive fortio-like k6 load through the local cluster, restart something mid-run, and report what was lost.',
    )
    .addOption(
      new Option('--scenario <name>', `one of: ${SCENARIO_NAMES.join(', ')}`)
        .default('ztunnel-upgrade')
        .argParser(choiceParser('--scenario', SCENARIO_NAMES)),
    )
    .addOption(
      new Option(
        '--suite <name>',
        'run a whole suite instead: seeds (every source experiment and arm)',
      ).argParser(choiceParser('--suite', SUITES)),
    )
    .option(
      '--config <file>',
      "an experiment file (YAML or JSON, keys are these options' long names, e.g. examples/e1-grace-120.yaml); flags given too override it",
    )
    .option(
      '--from <run dir>',
      'run again exactly what a run folder recorded (its experiment.yaml); flags given too override it',
    )
    .addOption(
      new Option(
        '--backend <name>',
        'local (embedded process cluster) or kind (needs Docker and kind; see README)',
      )
        .default('local')
        .argParser(choiceParser('--backend', ['local', 'kind'] as const)),
    )
    .option(
      '--grace <s>',
      'terminationGracePeriodSeconds of what the fault stops: ztunnel (with TERMINATION_GRACE_PERIOD_SECONDS, as the chart sets it); httpbin in sidecar-drain',
      numberParser('--grace', { min: 0, max: 3600, integer: true, unit: 'seconds' }),
      30,
    )
    .option(
      '--qps <n>',
      'requests per second, 0 = as fast as the connections go',
      numberParser('--qps', { min: 0, max: 100_000 }),
      0,
    )
    .option(
      '-c, --connections <n>',
      'connections (k6 VUs)',
      numberParser('--connections', { min: 1, max: 10_000, integer: true }),
      100,
    )
    .option(
      '--duration <s>',
      'seconds of load',
      numberParser('--duration', { min: 1, max: 86_400, unit: 'seconds' }),
      60,
    )
    .option(
      '--timeout <s>',
      'per-request timeout, seconds',
      numberParser('--timeout', { min: 0.001, max: 600, unit: 'seconds' }),
      10,
    )
    .option(
      '--path <path>',
      'request path (418 counts as OK, like the ASM runs)',
      pathParser('--path'),
      '/status/418',
    )
    .option(
      '--restart-at <s>',
      'seconds into the load to apply the fault; "none" for load only (default: a third of --duration)',
    )
    .option(
      '--replicas <n>',
      'httpbin replicas (1-4, as the documents ran them)',
      numberParser('--replicas', { min: 1, max: 4, integer: true }),
      3,
    )
    .option(
      '--gateway-concurrency <n>',
      "the gateway's worker processes, like Envoy's --concurrency (the Istio gateway chart's 2000m CPU limit gives 2)",
      numberParser('--gateway-concurrency', { min: 1, max: 16, integer: true }),
      GATEWAY_DEFAULT_CONCURRENCY,
    )
    .addOption(
      new Option(
        '--gateway-mode <mode>',
        "how the gateway reaches ambient pods: hbone (Istio >= 1.25's default) or plain (outside the mesh, captured by the pod's ztunnel); default: the scenario's",
      )
        .default('hbone')
        .argParser(choiceParser('--gateway-mode', ['hbone', 'plain'] as const)),
    )
    .addOption(
      new Option('--mesh <mode>', 'ambient | off')
        .default('ambient')
        .argParser(choiceParser('--mesh', ['ambient', 'off'] as const)),
    )
    .option(
      '--max-failed <n>',
      "failed requests a passing run may have (default: the scenario's)",
      numberParser('--max-failed', { min: 0, max: 1_000_000_000, integer: true }),
    )
    .option(
      '--repeat <n>',
      'runs in a row, each on a fresh cluster; prints min/median/max',
      numberParser('--repeat', { min: 1, max: 100, integer: true }),
    )
    .option(
      '--timing <name=ms>',
      `timing-model override, repeatable (${TIMING_MODEL_KEYS.join(', ')}); debounceQuietMs is the debounce arm`,
      timingParser('--timing', TIMING_MODEL_KEYS),
    )
    .option('--results-dir <dir>', 'where run folders and runs.csv go', DEFAULT_RESULTS_DIR)
    .option(
      '--kind-ingress-port <port>',
      "kind: the host port (on 127.0.0.1) kind maps the gateway's nodePort to; k6 sends there",
      numberParser('--kind-ingress-port', { min: 1, max: 65535, integer: true }),
      18080,
    )
    .option(
      '--keep-cluster',
      'kind: leave the cluster running after the run (kubectl; kind delete cluster)',
      false,
    )
    .option(
      '--prestop-sleep <s>',
      'arm: httpbin preStop sleep seconds (the 1.28 workaround)',
      seconds('--prestop-sleep'),
      0,
    )
    .option(
      '--retry-on <list>',
      "arm: the gateway's retry_on (e.g. add ,reset)",
      retryOnParser,
      DEFAULT_ARMS.retryOn,
    )
    .option(
      '--max-connection-duration <s>',
      "arm: the gateway's upstream max connection duration; 0 = none",
      seconds('--max-connection-duration'),
      0,
    )
    .option(
      '--hbone-idle-timeout <s>',
      "arm: the gateway's HBONE idle timeout; 0 = default (1 h)",
      seconds('--hbone-idle-timeout'),
      0,
    )
    .addOption(
      new Option('--drain-strategy <name>', `arm: ztunnel per-pod drain (${DRAIN_STRATEGIES.join(', ')})`)
        .default('none')
        .argParser(choiceParser('--drain-strategy', DRAIN_STRATEGIES)),
    )
    .addOption(
      new Option(
        '--tcp-migrate-req <0|1>',
        'arm: net.ipv4.tcp_migrate_req; 1 runs the experiment in its own network namespace (root)',
      )
        .default('0')
        .argParser(choiceParser('--tcp-migrate-req', ['0', '1'] as const)),
    )
    .option(
      '--mesh-client <rps>',
      'a meshed client pod calling httpbin at this rate, a new app connection per request, through its ztunnel (E5); 0 = none',
      numberParser('--mesh-client', { min: 0, max: 1000 }),
      0,
    )
    .option(
      '--pool-backoff',
      "arm: ztunnel's HBONE client pool backs off a destination after failed connects (istio/ztunnel#1191)",
      false,
    )
    .option(
      '--exit-on-zero-active-connections',
      "arm (sidecar-drain): pilot-agent's EXIT_ON_ZERO_ACTIVE_CONNECTIONS",
      false,
    )
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
}

function parseRestartAt(
  raw: string | undefined,
  durationS: number,
  fallback: number | undefined,
): number | undefined {
  if (raw === 'none') return undefined;
  if (raw === undefined) return fallback ?? durationS / 3;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value >= durationS)
    throw badInput('--restart-at', `a number of seconds in [0, --duration) or "none"`, raw);
  return value;
}

/** What --backend kind cannot do, refused before anything starts (exit 2). */
function checkKindFlags(flags: ExperimentFlags, scenario: ClusterScenario): void {
  if (scenario.notOnKind)
    throw badInput(
      '--scenario',
      'workload-rollout with --backend kind',
      scenario.name,
      `${scenario.name} cannot run on kind: ${scenario.notOnKind}; run it with --backend local`,
    );
  if (flags.drainStrategy !== 'none')
    throw badInput(
      '--drain-strategy',
      'none with --backend kind',
      flags.drainStrategy,
      "the strategies act on one pod's listeners, and ztunnel on kind serves every pod of its node on one listener; run them with --backend local",
    );
  if (flags.meshClient > 0)
    throw badInput(
      '--mesh-client',
      '0 with --backend kind',
      flags.meshClient,
      'the meshed client reaches ztunnel through in-pod outbound capture, which node-address mode on kind does not have; run it with --backend local',
    );
  const timing = Object.keys(flags.timing ?? {});
  if (timing.length > 0)
    throw badInput(
      '--timing',
      'unset with --backend kind',
      timing.join(','),
      "kind measures the real latencies from watch timestamps; the timing model is the local backend's",
    );
  if (flags.tcpMigrateReq === '1')
    throw badInput(
      '--tcp-migrate-req',
      '0 with --backend kind',
      1,
      'the sysctl is per network namespace and would have to be set on the kind nodes; run it with --backend local',
    );
}

/** The run's parameters: the user's flags, else the scenario's defaults, else the CLI's. */
export function paramsFromFlags(
  program: Command,
  flags: ExperimentFlags,
  scenario: ClusterScenario,
): ExperimentParams {
  const d: ScenarioDefaults = scenario.defaults ?? {};
  const pick = <T>(option: string, flag: T, fallback: T | undefined): T =>
    program.getOptionValueSource(option) === 'default' && fallback !== undefined ? fallback : flag;
  const durationS = pick('duration', flags.duration, d.durationS);
  const restartAtS = parseRestartAt(flags.restartAt, durationS, d.restartAtS);
  if (restartAtS !== undefined && restartAtS >= durationS)
    throw badInput('--duration', `longer than the restart time ${String(restartAtS)} s`, durationS);
  if (flags.backend === 'kind') checkKindFlags(flags, scenario);
  return {
    scenario: scenario.name,
    backend: flags.backend,
    mesh: flags.mesh,
    graceS: pick('grace', flags.grace, d.graceS),
    qps: pick('qps', flags.qps, d.qps),
    connections: pick('connections', flags.connections, d.connections),
    durationS,
    timeoutS: pick('timeout', flags.timeout, d.timeoutS),
    path: pick('path', flags.path, d.path),
    restartAtS,
    replicas: pick('replicas', flags.replicas, d.replicas),
    gatewayConcurrency: flags.gatewayConcurrency,
    gatewayMode: pick('gatewayMode', flags.gatewayMode, d.gatewayMode),
    meshClientRps: flags.meshClient,
    maxFailed: flags.maxFailed ?? scenario.defaultMaxFailed,
    timing: flags.timing ?? {},
    arms: {
      preStopSleepS: flags.prestopSleep,
      retryOn: flags.retryOn,
      maxConnectionDurationS: flags.maxConnectionDuration,
      hboneIdleTimeoutS: flags.hboneIdleTimeout,
      drainStrategy: flags.drainStrategy,
      poolBackoff: flags.poolBackoff,
      tcpMigrateReq: flags.tcpMigrateReq === '1' ? 1 : 0,
      exitOnZeroActiveConnections: flags.exitOnZeroActiveConnections,
    },
  };
}

export { CLUSTER_SCENARIOS };
