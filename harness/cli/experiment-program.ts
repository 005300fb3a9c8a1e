import { Command, Option } from 'commander';
import { refusal } from '../../clusters/capabilities.ts';
import type { Requirement } from '../../clusters/capabilities.ts';
import { CPU_ISOLATION_MODES, TIMING_MODEL_KEYS } from '../../clusters/local/index.ts';
import type { CpuIsolation } from '../../clusters/local/index.ts';
import { badInput } from '../../lib/index.ts';
import { GATEWAY_DEFAULT_CONCURRENCY } from '../../clusters/manifests/index.ts';
import { checkRetryOn } from '../../mesh/xds/route-policy.ts';
import { DRAIN_STRATEGIES } from '../../ztunnel/drain-strategy.ts';
import type { DrainStrategy } from '../../ztunnel/drain-strategy.ts';
import type { ClusterScenario, ScenarioDefaults } from '../experiment/cluster-scenario.ts';
import type { ExperimentParams } from '../experiment/experiment-params.ts';
import { ASM_E1_RATE_PER_S } from '../explain/deadline-accounting.ts';
import { DEFAULT_ARMS } from '../experiment/mitigation-arms.ts';
import { NEEDS_IN_POD_CAPTURE } from '../experiment/scenario-manifests.ts';
import { thresholdCollector } from '../experiment/thresholds.ts';
import { DEFAULT_RESULTS_DIR } from '../paths.ts';
import { GENERATOR_KINDS } from '../tools/index.ts';
import type { GeneratorChoice } from '../tools/index.ts';
import { CLUSTER_SCENARIOS, SCENARIO_NAMES } from '../scenarios/index.ts';
import { suitePath } from '../suite/suite-path.ts';
import type { ScenarioName } from '../scenarios/index.ts';
import { DURATION_FORMS } from './duration.ts';
import { choiceParser, numberParser, pathParser, restartAtParser, timingParser } from './parse-values.ts';

export interface ExperimentFlags {
  scenario: ScenarioName;
  /** A suite name under suites/ or a suite file's path. */
  suite?: string;
  /** Already expanded into the arguments (config/experiment-file.ts); kept for --help. */
  config?: string;
  from?: string;
  backend: 'local' | 'kind';
  generator: GeneratorChoice;
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
  projectRate: number;
  poolBackoff: boolean;
  mesh: 'ambient' | 'off';
  maxFailed?: number;
  threshold?: string[];
  k6Out?: string[];
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
  cpuIsolation: CpuIsolation;
  kindIngressPort: number;
  keepCluster: boolean;
  ztunnelImpl: 'ours' | 'istio';
  netns: boolean;
}

/** Repeatable --k6-out: k6's `name` or `name=argument` output syntax. */
function k6OutCollector(raw: string, previous: string[] = []): string[] {
  if (!/^[a-z][a-z0-9-]*(=.+)?$/.test(raw))
    throw badInput(
      '--k6-out',
      "a k6 output as k6's --out takes it, name or name=argument",
      raw,
      'e.g. --k6-out json=k6.json',
    );
  return [...previous, raw];
}

function retryOnParser(raw: string): string {
  try {
    checkRetryOn(raw);
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

/** One experiment option: its flags and help, how its value is parsed (bounds, choices), its default. */
interface OptionSpec {
  flags: string;
  description: string;
  parse?: (raw: string, previous: never) => unknown;
  default?: unknown;
}

const seconds = (flag: string) => numberParser(flag, { min: 0, max: 86_400, unit: 'seconds' });

/** Every option of `npm run experiment`, in --help order: the one table flags, files and the suite share. */
const OPTIONS: OptionSpec[] = [
  {
    flags: '--scenario <name>',
    description: `one of: ${SCENARIO_NAMES.join(', ')}`,
    parse: choiceParser('--scenario', SCENARIO_NAMES),
    default: 'ztunnel-upgrade',
  },
  {
    flags: '--suite <name|file>',
    description:
      'run a whole suite instead: seeds (suites/seeds.yaml: every source experiment and arm) or a suite file of the same format',
    parse: (value: string) => {
      suitePath(value);
      return value;
    },
  },
  {
    flags: '--config <file>',
    description:
      "an experiment file (YAML or JSON, keys are these options' long names, e.g. examples/e1-grace-120.yaml); flags given too override it",
  },
  {
    flags: '--from <run dir>',
    description:
      'run again exactly what a run folder recorded (its experiment.yaml); flags given too override it',
  },
  {
    flags: '--backend <name>',
    description: 'local (embedded process cluster) or kind (needs Docker and kind; see README)',
    parse: choiceParser('--backend', ['local', 'kind'] as const),
    default: 'local',
  },
  {
    flags: '--generator <name>',
    description:
      "the load generator: fortio (the documents' own tool, provisioned by npm run tools) or k6 (yours: on PATH or K6_BINARY; never built here); auto: k6 when one fits, else fortio",
    parse: choiceParser('--generator', [...GENERATOR_KINDS, 'auto'] as const),
    default: 'auto',
  },
  {
    flags: '--grace <s>',
    description:
      'terminationGracePeriodSeconds of what the fault stops: ztunnel (with TERMINATION_GRACE_PERIOD_SECONDS, as the chart sets it); httpbin in sidecar-drain',
    parse: numberParser('--grace', { min: 0, max: 3600, integer: true, unit: 'seconds' }),
    default: 30,
  },
  {
    flags: '--qps <n>',
    description: 'requests per second, 0 = as fast as the connections go',
    parse: numberParser('--qps', { min: 0, max: 100_000 }),
    default: 0,
  },
  {
    flags: '-c, --connections <n>',
    description: 'connections (k6 VUs)',
    parse: numberParser('--connections', { min: 1, max: 10_000, integer: true }),
    default: 100,
  },
  {
    flags: '--duration <s>',
    description: 'seconds of load',
    parse: numberParser('--duration', { min: 1, max: 86_400, unit: 'seconds' }),
    default: 60,
  },
  {
    flags: '--timeout <s>',
    description: 'per-request timeout, seconds',
    parse: numberParser('--timeout', { min: 0.001, max: 600, unit: 'seconds' }),
    default: 10,
  },
  {
    flags: '--path <path>',
    description: 'request path (418 counts as OK, like the ASM runs)',
    parse: pathParser('--path'),
    default: '/status/418',
  },
  {
    flags: '--restart-at <s>',
    description:
      'seconds into the load to apply the fault; "none" for load only (default: a third of --duration)',
    parse: restartAtParser('--restart-at'),
  },
  {
    flags: '--replicas <n>',
    description: 'httpbin replicas (1-4, as the documents ran them)',
    parse: numberParser('--replicas', { min: 1, max: 4, integer: true }),
    default: 3,
  },
  {
    flags: '--gateway-concurrency <n>',
    description:
      "the gateway Envoy's --concurrency, its worker threads (set from the proxy's CPU limit as pilot-agent does; the Istio gateway chart's 2000m gives 2)",
    parse: numberParser('--gateway-concurrency', { min: 1, max: 16, integer: true }),
    default: GATEWAY_DEFAULT_CONCURRENCY,
  },
  {
    flags: '--gateway-mode <mode>',
    description:
      "how the gateway reaches ambient pods: hbone (Istio >= 1.25's default) or plain (outside the mesh, captured by the pod's ztunnel); default: the scenario's",
    parse: choiceParser('--gateway-mode', ['hbone', 'plain'] as const),
    default: 'hbone',
  },
  {
    flags: '--ztunnel-impl <impl>',
    description:
      "ours | istio: istio/ztunnel's own binary (ZTUNNEL_BINARY, built with --features testing; ZTUNNEL_TEST_ROOT, its src/tls) in dedicated mode beside each httpbin pod, each pod in a network namespace of its own (root, local backend, workload-rollout)",
    parse: choiceParser('--ztunnel-impl', ['ours', 'istio'] as const),
    default: 'ours',
  },
  {
    flags: '--netns',
    description:
      'each httpbin (and mesh client) pod in a network namespace of its own, on a bridge per node, ztunnel binding its listeners inside it (root, local backend; the default keeps every pod on loopback)',
    default: false,
  },
  {
    flags: '--mesh <mode>',
    description: 'ambient | off',
    parse: choiceParser('--mesh', ['ambient', 'off'] as const),
    default: 'ambient',
  },
  {
    flags: '--max-failed <n>',
    description: "failed requests a passing run may have (default: the scenario's)",
    parse: numberParser('--max-failed', { min: 0, max: 1_000_000_000, integer: true }),
  },
  {
    flags: '--threshold <expr>',
    description:
      "pass/fail criterion in k6's style, repeatable: metric<op>number on failed, failed_rate, http_503, p99_ms, max_burst_ms, ... (e.g. 'p99_ms<500'); with --max-failed (failed<=N) all must hold",
    parse: thresholdCollector('--threshold'),
  },
  {
    flags: '--k6-out <output>',
    description:
      "a k6 output, repeatable, passed as k6's --out (e.g. json=k6.json, web-dashboard=export=k6-dashboard.html; relative paths land in the run's k6 folder). K6_* variables from the environment are not passed to k6",
    parse: k6OutCollector,
  },
  {
    flags: '--repeat <n>',
    description: 'runs in a row, each on a fresh cluster; prints min/median/max',
    parse: numberParser('--repeat', { min: 1, max: 100, integer: true }),
  },
  {
    flags: '--timing <name=ms>',
    description: `timing-model override, repeatable (${TIMING_MODEL_KEYS.join(', ')}); debounceQuietMs is the debounce arm`,
    parse: timingParser('--timing', TIMING_MODEL_KEYS),
  },
  {
    flags: '--results-dir <dir>',
    description: 'where run folders and runs.csv go',
    default: DEFAULT_RESULTS_DIR,
  },
  {
    flags: '--kind-ingress-port <port>',
    description: "kind: the host port (on 127.0.0.1) kind maps the gateway's nodePort to; k6 sends there",
    parse: numberParser('--kind-ingress-port', { min: 1, max: 65535, integer: true }),
    default: 18080,
  },
  {
    flags: '--keep-cluster',
    description: 'kind: leave the cluster running after the run (kubectl; kind delete cluster)',
    default: false,
  },
  {
    flags: '--prestop-sleep <s>',
    description: 'arm: httpbin preStop sleep seconds (the 1.28 workaround)',
    parse: seconds('--prestop-sleep'),
    default: 0,
  },
  {
    flags: '--retry-on <list>',
    description: "arm: the gateway route's retry_on, as a VirtualService's retries.retryOn (e.g. add ,reset)",
    parse: retryOnParser,
    default: DEFAULT_ARMS.retryOn,
  },
  {
    flags: '--max-connection-duration <s>',
    description:
      "arm: the gateway's upstream max_connection_duration, as a DestinationRule's tcp.maxConnectionDuration; 0 = none",
    parse: seconds('--max-connection-duration'),
    default: 0,
  },
  {
    flags: '--hbone-idle-timeout <s>',
    description:
      "arm: the gateway's HBONE idle timeout (meshConfig.hboneIdleTimeout, Istio 1.29); 0 = Envoy's 1 h",
    parse: seconds('--hbone-idle-timeout'),
    default: 0,
  },
  {
    flags: '--drain-strategy <name>',
    description: `arm: ztunnel per-pod drain (${DRAIN_STRATEGIES.join(', ')})`,
    parse: choiceParser('--drain-strategy', DRAIN_STRATEGIES),
    default: 'none',
  },
  {
    flags: '--tcp-migrate-req <0|1>',
    description: 'arm: net.ipv4.tcp_migrate_req; 1 runs the experiment in its own network namespace (root)',
    parse: choiceParser('--tcp-migrate-req', ['0', '1'] as const),
    default: '0',
  },
  {
    flags: '--mesh-client <rps>',
    description:
      'a meshed client pod calling httpbin at this rate, a new app connection per request, through its ztunnel (E5); 0 = none',
    parse: numberParser('--mesh-client', { min: 0, max: 1000 }),
    default: 0,
  },
  {
    flags: '--project-rate <req/s>',
    description:
      "E1: the rate the run's projection line answers for (\"how many would I lose at N req/s?\"), from the run's own T_past and L (ASM's rate by default)",
    parse: numberParser('--project-rate', { min: 1, max: 10_000_000 }),
    default: ASM_E1_RATE_PER_S,
  },
  {
    flags: '--pool-backoff',
    description:
      "arm: ztunnel's HBONE client pool backs off a destination after failed connects (istio/ztunnel#1191)",
    default: false,
  },
  {
    flags: '--exit-on-zero-active-connections',
    description: "arm (sidecar-drain): pilot-agent's EXIT_ON_ZERO_ACTIVE_CONNECTIONS",
    default: false,
  },
  {
    flags: '--cpu-isolation <mode>',
    description:
      "arm: none | nodes (each node's pods and the load generator in a cpu cgroup of their own, equal cpu.shares) | nodes-pinned (plus cpusets: the generator alone on the last CPU, the nodes on the others); root, cgroup v1, local backend",
    parse: choiceParser('--cpu-isolation', CPU_ISOLATION_MODES),
    default: 'none',
  },
];

export function buildExperimentProgram(): Command {
  const program = new Command('experiment').description(
    'Drive fortio-like k6 load through the local cluster, restart something mid-run, and report what was lost.',
  );
  for (const spec of OPTIONS) {
    const option = new Option(spec.flags, spec.description);
    if (spec.parse) option.argParser(spec.parse as (raw: string, previous: never) => never);
    if (spec.default !== undefined) option.default(spec.default);
    program.addOption(option);
  }
  program.addHelpText('after', `\nOptions in seconds (<s>) take ${DURATION_FORMS}.`);
  return program.exitOverride().showHelpAfterError('(run with --help for usage)');
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

/** What the experiment asks of its backend, by the scenario and by the options that need something. */
function requirementsOf(
  flags: ExperimentFlags,
  scenario: ClusterScenario,
  gatewayMode: ExperimentFlags['gatewayMode'],
): Requirement[] {
  const timing = Object.keys(flags.timing ?? {});
  const asked: (Requirement | false)[] = [
    ...(scenario.requires ?? []).map((r) => ({ ...r, flag: '--scenario', value: scenario.name })),
    // A plain gateway sends plaintext to the pod's address; only in-pod capture puts ztunnel on
    // that path. Without it the row would say mesh=ambient and measure no ztunnel at all.
    gatewayMode === 'plain' &&
      flags.mesh === 'ambient' && {
        capability: 'inPodCapture',
        flag: '--gateway-mode',
        value: 'plain',
        why: `with --mesh ambient ${NEEDS_IN_POD_CAPTURE}; use --gateway-mode hbone (the mesh-aware gateway) or --mesh off`,
      },
    flags.drainStrategy !== 'none' && {
      capability: 'inPodCapture',
      flag: '--drain-strategy',
      value: flags.drainStrategy,
      why: "the strategies act on one pod's listeners",
    },
    flags.meshClient > 0 && {
      capability: 'inPodCapture',
      flag: '--mesh-client',
      value: flags.meshClient,
      why: 'the meshed client reaches ztunnel through in-pod outbound capture',
    },
    timing.length > 0 && { capability: 'timingModel', flag: '--timing', value: timing.join(',') },
    flags.tcpMigrateReq === '1' && { capability: 'perNetnsSysctls', flag: '--tcp-migrate-req', value: 1 },
    flags.ztunnelImpl === 'istio' && { capability: 'podNamespaces', flag: '--ztunnel-impl', value: 'istio' },
    flags.netns && { capability: 'podNamespaces', flag: '--netns', value: 'set' },
    flags.cpuIsolation !== 'none' && {
      capability: 'cpuGroups',
      flag: '--cpu-isolation',
      value: flags.cpuIsolation,
    },
  ];
  return asked.filter((r): r is Requirement => r !== false);
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
  const gatewayMode = pick('gatewayMode', flags.gatewayMode, d.gatewayMode);
  const refused = refusal(flags.backend, requirementsOf(flags, scenario, gatewayMode));
  if (refused) throw refused;
  if (flags.ztunnelImpl === 'istio' && (scenario.name !== 'workload-rollout' || flags.mesh !== 'ambient'))
    throw badInput(
      '--ztunnel-impl',
      'ours, unless --scenario workload-rollout with --mesh ambient',
      `istio with --scenario ${scenario.name} --mesh ${flags.mesh}`,
      'istio/ztunnel runs in dedicated mode beside each httpbin pod: the rollout of those pods (E2) is what it can serve; its upgrade (E1) needs shared mode, not built',
    );
  if (flags.netns && scenario.name === 'sidecar-drain')
    throw badInput(
      '--netns',
      'not set with --scenario sidecar-drain',
      'set',
      "the sidecar and its app would share the pod's namespace and its ports; that pod layout is not built: leave --netns off",
    );
  return {
    scenario: scenario.name,
    backend: flags.backend,
    generator: flags.generator,
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
    gatewayMode,
    meshClientRps: flags.meshClient,
    projectRatePerS: flags.projectRate,
    maxFailed: flags.maxFailed ?? scenario.defaultMaxFailed,
    thresholds: flags.threshold ?? [],
    k6Out: flags.k6Out ?? [],
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
      cpuIsolation: flags.cpuIsolation,
    },
    ztunnelImpl: flags.ztunnelImpl,
    podNetwork: flags.netns || flags.ztunnelImpl === 'istio' ? 'netns' : 'loopback',
  };
}

export { CLUSTER_SCENARIOS };
