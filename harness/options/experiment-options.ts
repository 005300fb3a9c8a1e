// Every option of `npm run experiment`, in --help order: the one table the CLI, experiment files,
// run folders, the suite, the summary row's parameter columns, compare and docs/reference.md share.
import { resolve as resolvePath } from 'node:path';
import { BACKEND_NAMES, BACKENDS, DEFAULT_BACKEND, allBackendOptions } from '../../clusters/registry.ts';
import type { BackendName } from '../../clusters/registry.ts';
import { TIMING_MODEL_KEYS } from '../../clusters/local/index.ts';
import type { TimingModel } from '../../clusters/local/index.ts';
import { GATEWAY_DEFAULT_CONCURRENCY } from '../../clusters/manifests/index.ts';
import { ZTUNNEL_IMPL_NAMES, ZTUNNEL_IMPLS, ZTUNNEL_MODES } from '../../clusters/ztunnel-impl.ts';
import type { ZtunnelImplName, ZtunnelMode } from '../../clusters/ztunnel-impl.ts';
import { ztunnelVersionOf } from '../../clusters/ztunnel-version.ts';
import { badInput } from '../../lib/index.ts';
import type { Flag } from '../../lib/index.ts';
import { APP_SHUTDOWNS } from '../../apps/fault-server/app-shutdown.ts';
import { GO_HTTPBIN_READ_TIMEOUT_MS } from '../../apps/go-httpbin.ts';
import { ZTUNNEL_UPDATES } from '../../clusters/ztunnel-update.ts';
import type { ZtunnelUpdate } from '../../clusters/ztunnel-update.ts';
import type { AppShutdown } from '../../apps/fault-server/app-shutdown.ts';
import { ASM_E1_RATE_PER_S } from '../explain/deadline-accounting.ts';
import { thresholdCollector } from '../verdict/thresholds.ts';
import { DEFAULT_RESULTS_DIR } from '../paths.ts';
import { GENERATOR_KINDS } from '../provision/index.ts';
import type { GeneratorChoice } from '../provision/index.ts';
import { armOptions } from './arms.ts';
import { loadFromOption } from './load-from-option.ts';
import type { MitigationArms } from './arms.ts';
import { attributeOf, commandOption, flagFields, inGroup, paramOption } from './option.ts';
import type { ParamsIn, ParamsOf, ResolveContext, TableOption } from './option.ts';
import { choiceParser, numberParser, pathParser, restartAtParser, timingParser } from './parse-values.ts';

/** --results-dir, which kind-smoke takes too (with its own help). */
export const RESULTS_DIR: Flag<string> = {
  key: 'results-dir',
  arg: '<dir>',
  description: 'where run folders and runs.csv go',
  default: DEFAULT_RESULTS_DIR,
};

const topology = inGroup('topology');
const load = inGroup('load');
const fault = inGroup('fault');
const verdict = inGroup('verdict');

/**
 * The parsed flags, by attribute (commander's camelCase of the key). The fields commands read
 * themselves are typed; the rest reach the run through ExperimentParams.
 */
export interface ExperimentFlags extends Partial<Record<string, unknown>> {
  scenario: string;
  suite?: string;
  only?: string;
  config?: string;
  from?: string;
  backend: string;
  generator: GeneratorChoice;
  qps: number;
  connections: number;
  duration: number;
  timeout: number;
  path: string;
  repeat?: number;
  resultsDir: string;
  timing?: Record<string, number>;
  /** Test only: a known regression to plant (the arm; a suite passes it to every entry). */
  plantRegression?: string;
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

/** --restart-at's seconds: "none" for load only, else before the end of the load. */
function restartAtOf(raw: string | undefined, c: ResolveContext<{ durationS: number }>): number | undefined {
  const { durationS } = c.params;
  const scenarioDefault = c.scenario.defaults['restartAtS'];
  const fallback = typeof scenarioDefault === 'number' ? scenarioDefault : undefined;
  if (raw === 'none') return undefined;
  if (raw === undefined && fallback !== undefined && fallback >= durationS)
    throw badInput('--duration', `longer than the restart time ${String(fallback)} s`, durationS);
  if (raw === undefined) return fallback ?? durationS / 3;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value >= durationS)
    throw badInput('--restart-at', `a number of seconds in [0, --duration) or "none"`, raw);
  return value;
}

const COMMAND_OPTIONS = {
  suite: commandOption<string>({
    key: 'suite',
    arg: '<name|file>',
    description:
      'run a whole suite instead: seeds (suites/seeds.yaml: every source experiment and arm) or a suite file of the same format',
  }),
  config: commandOption<string>({
    key: 'config',
    arg: '<file>',
    description:
      "an experiment file (YAML or JSON, keys are these options' long names); flags given too override it",
    detail: 'e.g. examples/e1-grace-120.yaml',
  }),
  only: commandOption<string>({
    key: 'only',
    arg: '<experiment>',
    description: 'suite: only the entries whose experiment starts with this (e.g. E5)',
  }),
  from: commandOption<string>({
    key: 'from',
    arg: '<run dir>',
    description:
      'run again exactly what a run folder recorded (its experiment.yaml); flags given too override it',
  }),
};

/** Options of the command, not of the experiment: a file or a suite entry may not set them. */
export const COMMAND_KEYS: ReadonlySet<string> = new Set([
  ...Object.keys(COMMAND_OPTIONS),
  'help',
  'version',
]);

const EXPERIMENT_OPTIONS = {
  scenario: topology(
    paramOption<string, string>({
      key: 'scenario',
      arg: '<name>',
      // Its choices come from the scenarios (experimentOptions), which sit above this table.
      description: 'the cluster scenario',
      default: 'ztunnel-upgrade',
      toParam: (_, c) => c.scenario.name,
      column: { name: 'scenario', group: 'lead' },
    }),
  ),
  suite: COMMAND_OPTIONS.suite,
  config: COMMAND_OPTIONS.config,
  from: COMMAND_OPTIONS.from,
  only: COMMAND_OPTIONS.only,
  backend: topology(
    paramOption<BackendName>({
      key: 'backend',
      arg: '<name>',
      description: `${BACKEND_NAMES.join(' | ')}: the cluster the run brings up (local, kind) or yours (cluster)`,
      detail: BACKENDS.map((b) => b.summary).join('; '),
      parse: choiceParser('--backend', BACKEND_NAMES),
      default: DEFAULT_BACKEND,
      column: { name: 'backend', note: ' (local, kind or cluster)', group: 'lead' },
    }),
  ),
  generator: load(
    paramOption<GeneratorChoice>({
      key: 'generator',
      arg: '<name>',
      description: 'the load generator: fortio | k6 | auto (k6 when one fits, else fortio)',
      detail:
        "fortio: the documents' own tool, provisioned by npm run tools; k6: yours, on PATH or K6_BINARY, never built here",
      parse: choiceParser('--generator', [...GENERATOR_KINDS, 'auto'] as const),
      default: 'auto',
      // The row's `generator` column is the one that ran (record/run-row.ts), not the one asked for.
    }),
  ),
  loadFrom: load(loadFromOption),
  mesh: topology(
    paramOption<'ambient' | 'off'>({
      key: 'mesh',
      arg: '<mode>',
      description: 'ambient | off',
      parse: choiceParser('--mesh', ['ambient', 'off'] as const),
      default: 'ambient',
      column: { name: 'mesh', note: ' (ambient or off)', group: 'lead' },
    }),
  ),
  appShutdown: topology(
    paramOption<AppShutdown>({
      key: 'app-shutdown',
      arg: '<mode>',
      description: `the workload's SIGTERM: ${APP_SHUTDOWNS.join(' | ')} (Istio's echo server's)`,
      detail:
        "immediate: go-httpbin stops accepting at SIGTERM (the 1.28 report's workload); echo: the fault server with go-httpbin's routes in its place, serving until 1 s passes with no request, at most 10 s, as Istio's echo server does (pkg/test/echo/cmd/server/main.go), which TestServiceRestart relies on",
      parse: choiceParser('--app-shutdown', APP_SHUTDOWNS),
      default: 'immediate',
      // Only where httpbin's pods terminate.
      scenarios: ['workload-rollout', 'istio-service-restart'],
      requires: (mode) => mode === 'echo' && { capability: 'faultServerWorkload', value: mode },
      column: {
        name: 'app_shutdown',
        note: ": the workload's SIGTERM (immediate: go-httpbin's; echo: Istio's echo server's)",
        group: 'shape',
        added: { since: 20, olderRowsRan: 'immediate' },
      },
    }),
  ),
  appIdleTimeoutS: topology(
    paramOption<number>({
      key: 'app-idle-timeout',
      arg: '<s>',
      description:
        "how long the workload keeps an idle keep-alive connection before it closes it (go-httpbin's 5 s)",
      detail:
        "go-httpbin's -srv-read-timeout (SRV_READ_TIMEOUT): with no IdleTimeout set, Go's http.Server closes a connection idle that long; the fault server (--app-shutdown echo) the same. What the gateway's upstream connections to it live by: the keep-alive race, and how long an ambient gateway's internal HBONE listeners hold connections",
      parse: numberParser('--app-idle-timeout', { min: 1, max: 3600, unit: 'seconds' }),
      default: GO_HTTPBIN_READ_TIMEOUT_MS / 1000,
      column: {
        name: 'app_idle_timeout_s',
        note: ": the workload's keep-alive idle close, seconds (go-httpbin's ReadTimeout)",
        group: 'shape',
        added: { since: 23, olderRowsRan: '5' },
      },
    }),
  ),
  graceS: fault(
    paramOption<number>({
      key: 'grace',
      arg: '<s>',
      description:
        'terminationGracePeriodSeconds of what the fault stops (ztunnel; httpbin in sidecar-drain)',
      detail: 'ztunnel gets it as TERMINATION_GRACE_PERIOD_SECONDS, as the chart sets it',
      parse: numberParser('--grace', { min: 0, max: 3600, integer: true, unit: 'seconds' }),
      default: 30,
      scenarioDefault: true,
      column: { name: 'grace_s', note: ', seconds', group: 'lead' },
    }),
  ),
  qps: load(
    paramOption<number>({
      key: 'qps',
      arg: '<n>',
      description: 'requests per second, 0 = as fast as the connections go',
      parse: numberParser('--qps', { min: 0, max: 100_000 }),
      default: 0,
      scenarioDefault: true,
      column: { name: 'qps', note: ' (0 = as fast as the connections go)', group: 'lead' },
    }),
  ),
  connections: load(
    paramOption<number>({
      key: 'connections',
      short: '-c',
      arg: '<n>',
      description: 'connections (k6 VUs)',
      parse: numberParser('--connections', { min: 1, max: 10_000, integer: true }),
      default: 100,
      scenarioDefault: true,
      column: { name: 'connections', group: 'lead' },
    }),
  ),
  durationS: load(
    paramOption<number>({
      key: 'duration',
      arg: '<s>',
      description: 'seconds of load',
      parse: numberParser('--duration', { min: 1, max: 86_400, unit: 'seconds' }),
      default: 60,
      scenarioDefault: true,
      column: { name: 'duration_s', note: ', seconds of load', group: 'lead' },
    }),
  ),
  timeoutS: load(
    paramOption<number>({
      key: 'timeout',
      arg: '<s>',
      description: 'per-request timeout, seconds',
      parse: numberParser('--timeout', { min: 0.001, max: 600, unit: 'seconds' }),
      default: 10,
      scenarioDefault: true,
      column: { name: 'timeout_s', note: ', seconds', group: 'shape' },
    }),
  ),
  path: load(
    paramOption<string>({
      key: 'path',
      arg: '<path>',
      description: 'request path (418 counts as OK, like the ASM runs)',
      parse: pathParser('--path'),
      default: '/status/418',
      scenarioDefault: true,
      column: { name: 'path', group: 'shape' },
    }),
  ),
  restartAtS: fault(
    paramOption<string | undefined, number | undefined, { durationS: number }>({
      key: 'restart-at',
      arg: '<s>',
      description:
        'seconds into the load to apply the fault; "none" for load only (default: a third of --duration)',
      parse: restartAtParser('--restart-at'),
      reads: ['durationS'],
      toParam: restartAtOf,
      // A number reads as the number it is in experiment.yaml (the flag is a string for "none").
      fromParam: (s) => s ?? 'none',
      column: {
        name: 'restart_at_s',
        note: ', seconds into the load, or none',
        group: 'shape',
        render: (s) => s ?? 'none',
      },
    }),
  ),
  ztunnelUpdate: fault(
    paramOption<ZtunnelUpdate>({
      key: 'ztunnel-update',
      arg: '<strategy>',
      description: `how ztunnel's DaemonSet replaces its pods: ${ZTUNNEL_UPDATES.join(' | ')}`,
      detail:
        "surge: the chart's (maxSurge 1, maxUnavailable 0: the new pod beside the old, the old deleted once the new is ready); unavailable: the DaemonSet's default (maxSurge 0, maxUnavailable 1: the old pod deleted first); delete-all: OnDelete, every ztunnel pod deleted at once at the fault, as Istio's CRL test restarts ztunnel; drain: OnDelete, node by node (sail-operator#1552's advice): the node cordoned, its meshed pods evicted (Eviction API, a PodDisruptionBudget of maxUnavailable 1 on each drained Deployment, a refusal retried after 5 s as kubectl drain), its ztunnel pod deleted once they are gone, the node uncordoned once the new one is Ready (kind)",
      parse: choiceParser('--ztunnel-update', ZTUNNEL_UPDATES),
      default: 'surge',
      // Only where the fault restarts ztunnel's DaemonSet.
      scenarios: ['ztunnel-upgrade', 'long-lived', 'istio-ztunnel-restart', 'ztunnel-restart-during-rollout'],
      requires: (s) =>
        s !== 'surge' && { capability: s === 'drain' ? 'nodeDrain' : 'ztunnelUpdateStrategies', value: s },
      column: {
        name: 'ztunnel_update',
        note: ": how ztunnel's DaemonSet replaced its pods (surge, unavailable, delete-all, drain)",
        group: 'shape',
        added: { since: 22, olderRowsRan: 'surge' },
      },
    }),
  ),
  replicas: topology(
    paramOption<number>({
      key: 'replicas',
      arg: '<n>',
      description: 'httpbin replicas (1-4, as the documents ran them)',
      parse: numberParser('--replicas', { min: 1, max: 4, integer: true }),
      default: 3,
      scenarioDefault: true,
      column: { name: 'replicas', group: 'shape' },
    }),
  ),
  gatewayConcurrency: topology(
    paramOption<number>({
      key: 'gateway-concurrency',
      arg: '<n>',
      description: "the gateway Envoy's --concurrency, its worker threads",
      detail: "set from the proxy's CPU limit as pilot-agent does; the Istio gateway chart's 2000m gives 2",
      parse: numberParser('--gateway-concurrency', { min: 1, max: 16, integer: true }),
      default: GATEWAY_DEFAULT_CONCURRENCY,
      column: { name: 'gateway_concurrency', group: 'shape' },
    }),
  ),
  gatewayMode: topology(
    paramOption<'hbone' | 'plain'>({
      key: 'gateway-mode',
      arg: '<mode>',
      description: "how the gateway reaches ambient pods: hbone | plain; default: the scenario's",
      detail: "hbone: Istio >= 1.25's default; plain: outside the mesh, captured by the pod's ztunnel",
      parse: choiceParser('--gateway-mode', ['hbone', 'plain'] as const),
      default: 'hbone',
      scenarioDefault: true,
      column: { name: 'gateway_mode', note: ' (hbone or plain)', group: 'shape' },
    }),
  ),
  ztunnelImpl: topology(
    paramOption<ZtunnelImplName>({
      key: 'ztunnel-impl',
      arg: '<impl>',
      description:
        "ours | istio | istio-shared: our ztunnel, or istio/ztunnel's binary (dedicated or shared mode)",
      detail:
        "istio/ztunnel's own binary (ZTUNNEL_BINARY); istio runs it in dedicated mode beside each httpbin pod (workload-rollout; FAKE_CA: a --features testing build and ZTUNNEL_TEST_ROOT, its src/tls), istio-shared as the ztunnel DaemonSet in shared mode, our node agent speaking ZDS to it, our control plane delta xDS and our CA over gRPC (any build; --istio-shared-ca fake: a testing build and ZTUNNEL_TEST_ROOT), istio-cni's in-pod rules (iptables) (ztunnel-upgrade, long-lived, workload-rollout); on the local backend each pod in a network namespace of its own (root, Go), on kind the binary packaged into an image at run time (in-pod mode)",
      parse: choiceParser('--ztunnel-impl', ZTUNNEL_IMPL_NAMES),
      default: 'ours',
      column: {
        name: 'ztunnel_impl',
        note: ' (ours, istio or istio-shared)',
        group: 'shape',
        added: { since: 5, olderRowsRan: 'ours' },
      },
      // Dedicated mode binds inside namespaces the harness makes (local); shared mode needs a backend
      // that runs the binary as its DaemonSet (local, kind).
      requires: (impl) =>
        impl === 'istio'
          ? { capability: 'podNamespaces', value: impl }
          : impl === 'istio-shared' && { capability: 'upstreamZtunnelDaemonSet', value: impl },
    }),
  ),
  ztunnelBinary: topology(
    paramOption<string, string, { ztunnelImpl: ZtunnelImplName }>({
      key: 'ztunnel-binary',
      arg: '<path>',
      description:
        'with --ztunnel-impl istio or istio-shared: the istio/ztunnel binary (default: ZTUNNEL_BINARY)',
      detail:
        "the row's ztunnel_version is what that binary's `ztunnel version` says. Releases side by side: suites/versions.yaml",
      parse: (raw) => {
        if (raw.trim() === '') throw badInput('--ztunnel-binary', 'the path of an istio/ztunnel binary', raw);
        return raw;
      },
      default: '',
      reads: ['ztunnelImpl'],
      // The path the run used, resolved once (a run folder re-runs the same binary); '' with ours.
      toParam: (path, c) => {
        if (!ZTUNNEL_IMPLS[c.params.ztunnelImpl].isUpstreamBinary) {
          if (c.given && path)
            throw badInput(
              '--ztunnel-binary',
              'with --ztunnel-impl istio-shared or istio',
              path,
              'our ztunnel is built from this repository; the flag names an istio/ztunnel binary',
            );
          return '';
        }
        const binary = path || process.env['ZTUNNEL_BINARY'] || '';
        return binary && resolvePath(binary);
      },
      fromParam: (binary) => binary || undefined,
      column: {
        name: 'ztunnel_version',
        note: ": istio/ztunnel's release as its binary reports it (`ztunnel version`); empty with our ztunnel",
        group: 'shape',
        added: { since: 19, olderRowsRan: '' },
        render: ztunnelVersionOf,
      },
    }),
  ),
  ztunnelMode: topology(
    paramOption<ZtunnelMode>({
      key: 'ztunnel-mode',
      arg: '<mode>',
      description: "in-pod | node-address: where ztunnel's listeners are (in-pod: Istio ambient's)",
      detail:
        "in-pod: inside each pod's network namespace, handed over by the node agent (on kind, istio-cni's DaemonSet and its CNI plugin). node-address (kind only, the old kind mode): on each node's address (hostNetwork), HBONE to a pod ending on its node, no traffic capture; not with the ztunnel upgrade's scenarios or a plain gateway",
      parse: choiceParser('--ztunnel-mode', ZTUNNEL_MODES),
      default: 'in-pod',
      // The row says it in the backend's ztunnel_mode column (clusters/backend-columns.ts).
      requires: (mode) => mode === 'node-address' && { capability: 'nodeAddressZtunnel', value: mode },
    }),
  ),
  podNetwork: topology(
    paramOption<boolean, 'loopback' | 'netns', { ztunnelImpl: ZtunnelImplName }>({
      key: 'netns',
      description:
        'each httpbin (and mesh client) pod in a network namespace of its own (root, local backend)',
      detail:
        'on a bridge per node, ztunnel binding its listeners inside it; the default keeps every pod on loopback',
      default: false,
      // --ztunnel-impl istio and istio-shared imply it (the binary binds inside the pods' namespaces).
      reads: ['ztunnelImpl'],
      toParam: (on, c) =>
        on || ZTUNNEL_IMPLS[c.params.ztunnelImpl].needsPodNamespaces ? 'netns' : 'loopback',
      fromParam: (network, p) => network === 'netns' && !ZTUNNEL_IMPLS[p.ztunnelImpl].needsPodNamespaces,
      column: {
        name: 'pod_network',
        note: ': loopback, or netns (also with `--ztunnel-impl istio` or `istio-shared`)',
        group: 'shape',
        added: { since: 6, olderRowsRan: 'loopback' },
      },
      requires: (on) => on && { capability: 'podNamespaces', value: 'set' },
    }),
  ),
  meshClientRps: load(
    paramOption<number>({
      key: 'mesh-client',
      arg: '<rps>',
      description:
        'a meshed client pod calling httpbin at this rate, a new app connection per request, through its ztunnel (E5); 0 = none',
      parse: numberParser('--mesh-client', { min: 0, max: 1000 }),
      default: 0,
      column: {
        name: 'mesh_client_rps',
        note: ', requests per second of the meshed client pod',
        group: 'shape',
      },
      requires: (rps) =>
        rps > 0 && {
          capability: 'inPodCapture',
          value: rps,
          why: 'the meshed client reaches ztunnel through in-pod outbound capture',
        },
    }),
  ),
  maxFailed: verdict(
    paramOption<number | undefined, number | undefined>({
      key: 'max-failed',
      arg: '<n>',
      description: "failed requests a passing run may have (default: the scenario's)",
      detail:
        "the Istio test scenarios judge a success rate instead (their --threshold 'success_rate>=X'): no count unless given",
      parse: numberParser('--max-failed', { min: 0, max: 1_000_000_000, integer: true }),
      toParam: (n, c) => n ?? c.scenario.defaultMaxFailed,
      column: {
        name: 'max_failed',
        note: ", else the scenario's budget (empty: none, a success rate judges)",
        render: (n) => n ?? '',
        group: 'shape',
        role: 'bookkeeping',
      },
    }),
  ),
  thresholds: verdict(
    paramOption<string[] | undefined, string[]>({
      key: 'threshold',
      arg: '<expr>',
      description: "pass/fail criterion in k6's style, repeatable: metric<op>number, e.g. 'p99_ms<500'",
      detail:
        'metrics: failed, failed_rate, success_rate, http_503, p99_ms, max_burst_ms, ...; with --max-failed (failed<=N) all must hold',
      parse: thresholdCollector('--threshold'),
      repeatable: 'list',
      // The scenario's criterion (Istio's success rates) unless the user gives their own.
      toParam: (list, c) => list ?? [...(c.scenario.defaultThresholds ?? [])],
    }),
  ),
  k6Out: load(
    paramOption<string[] | undefined, string[]>({
      key: 'k6-out',
      arg: '<output>',
      description: "a k6 output, repeatable, passed as k6's --out (e.g. json=k6.json)",
      detail:
        "or web-dashboard=export=k6-dashboard.html; relative paths land in the run's k6 folder. K6_* variables from the environment are not passed to k6",
      parse: k6OutCollector,
      repeatable: 'list',
      toParam: (list) => list ?? [],
    }),
  ),
  repeat: commandOption<number>({
    key: 'repeat',
    arg: '<n>',
    description: 'runs in a row, each on a fresh cluster; prints min/median/max',
    parse: numberParser('--repeat', { min: 1, max: 100, integer: true }),
  }),
  timing: topology(
    paramOption<Record<string, number> | undefined, Partial<TimingModel>>({
      key: 'timing',
      arg: '<name=ms>',
      description: 'timing-model override, repeatable: <name>=<ms>; debounceQuietMs is the debounce arm',
      detail:
        'names: watchFanoutMs, kubeletReactionMs, sandboxSetupMs, exitDetectionMs, pushLatencyMs, debounceQuietMs, debounceMaxMs',
      parse: timingParser('--timing', TIMING_MODEL_KEYS),
      repeatable: 'timing',
      toParam: (t) => t ?? {},
      // The row records the model in the backend's timing_* columns. The debounce alone is istiod's
      // PILOT_DEBOUNCE_AFTER where istiod is a real process (kind): a setting, not a model.
      requires: (t) => {
        const keys = Object.keys(t ?? {});
        const modelled = keys.filter((k) => k !== 'debounceQuietMs');
        if (modelled.length > 0) return { capability: 'timingModel', value: modelled.join(',') };
        return keys.length > 0 && { capability: 'controlPlaneDebounce', value: 'debounceQuietMs' };
      },
    }),
  ),
  resultsDir: commandOption(RESULTS_DIR),
  projectRatePerS: verdict(
    paramOption<number>({
      key: 'project-rate',
      arg: '<req/s>',
      description: "E1: the rate the run's projection line answers for (default: ASM's rate)",
      detail: '"how many would I lose at N req/s?", from the run\'s own T_past and L',
      parse: numberParser('--project-rate', { min: 1, max: 10_000_000 }),
      default: ASM_E1_RATE_PER_S,
      // The projection answers for ztunnel's drain deadlines: the scenarios that restart its DaemonSet.
      scenarios: ['ztunnel-upgrade', 'long-lived'],
    }),
  ),
};

/** The parameters the experiment's own options set (the arms' are MitigationArms). */
export type OptionParams = ParamsOf<typeof EXPERIMENT_OPTIONS>;
/** The cluster and what runs on it: scenario, backend, mesh, gateway, ztunnel, pods, timing model. */
export type TopologyParams = ParamsIn<typeof EXPERIMENT_OPTIONS, 'topology'>;
/** The load: generator, rate, connections, duration, timeout, path, the mesh client. */
export type LoadParams = ParamsIn<typeof EXPERIMENT_OPTIONS, 'load'>;
/** The fault: when it comes and the grace period its pods get. */
export type FaultParams = ParamsIn<typeof EXPERIMENT_OPTIONS, 'fault'>;
/** How the run is judged: the failures allowed, thresholds, the projection's rate. */
export type VerdictParams = ParamsIn<typeof EXPERIMENT_OPTIONS, 'verdict'>;

/**
 * A backend's own options (clusters/registry.ts) in the table, declared in the same form as the
 * experiment's (FlagSpec's flag fields): the run hands their values back by key.
 */
function backendOptions(): TableOption[] {
  return allBackendOptions().map((o) => ({ ...flagFields(o), group: 'backend' }));
}

/** Each backend option's value, by its key, as the backend's create() takes them (`settings`). */
export function backendSettings(flags: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(allBackendOptions().map((o) => [o.key, flags[attributeOf(o.key)]]));
}

/**
 * The whole table: the experiment's options, the arms, then each backend's own (registry). With the
 * scenarios' names, --scenario takes exactly those (the CLI passes them; columns need no parser).
 */
export function experimentOptions(scenarios?: { names: readonly string[]; help?: string }): TableOption[] {
  const own = Object.entries(EXPERIMENT_OPTIONS).map(([name, o]) =>
    o.kind === 'param' ? o.table(name) : o.table(),
  );
  const table = [...own, ...armOptions(), ...backendOptions()];
  if (!scenarios) return table;
  return table.map((o) =>
    o.key === 'scenario'
      ? {
          ...o,
          description: `one of: ${scenarios.names.join(', ')}${scenarios.help ?? ''}`,
          parse: choiceParser('--scenario', scenarios.names),
        }
      : o,
  );
}

export type { MitigationArms };
