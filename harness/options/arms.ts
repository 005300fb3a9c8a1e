// The mitigation arms docs/architecture.md names (Experiments): each one an option whose value reaches
// the component that implements it and a column of every row. Two more mitigations are ordinary
// parameters: longer grace (--grace) and a lower control-plane debounce (--timing debounceQuietMs=...).
//
// Adding an arm: an entry here (flag, parser, default, column, label, and either `env`, the variable
// its component reads, or a line in harness/run/scenario-manifests.ts for a manifest field),
// the component reading it, a test, and `npm run docs`. MitigationArms, the defaults, the columns,
// the label, experiment files, run folders and compare all follow from the entry.
import { CPU_ISOLATION_MODES } from '../../clusters/local/index.ts';
import type { CpuIsolation } from '../../clusters/local/index.ts';
import { badInput, PLANTED_REGRESSION_ENV, PLANTED_REGRESSIONS } from '../../lib/index.ts';
import type { PlantedRegression } from '../../lib/index.ts';
import { checkRetryOn, ISTIO_DEFAULT_RETRY_ON } from '../../mesh/xds/route-policy.ts';
import { DRAIN_STRATEGIES } from '../../ztunnel/drain-strategy.ts';
import type { DrainStrategy } from '../../ztunnel/drain-strategy.ts';
import { choiceParser, numberParser } from './parse-values.ts';
import type { ColumnBinding } from './column-binding.ts';
import { eraseParamSpec } from './option.ts';
import type { FlagSpec, ParamSpec, TableOption } from './option.ts';

/** A component that reads arms from its environment (the manifests set the variable). */
export type ArmComponent = 'ztunnel' | 'sidecar';

export interface ArmSpec<T> extends Omit<FlagSpec<T>, 'default' | 'parse'> {
  default: T;
  parse?: (raw: string) => T;
  column: Omit<ColumnBinding<T>, 'group'>;
  /** The environment variable its component reads; undefined leaves it unset. */
  env?: { component: ArmComponent; name: string; value: (value: T) => string | undefined };
  /** A value other than the default, for the round-trip tests (experiment files, run folders). */
  example: T;
}

function arm<T>(spec: ArmSpec<T>): ArmSpec<T> {
  return spec;
}

const seconds = (flag: string) => numberParser(flag, { min: 0, max: 86_400, unit: 'seconds' });
const oneZero = (on: boolean): number => (on ? 1 : 0);

/** The conditions as Envoy reads them (split at commas, trimmed), written the one way rows record. */
function retryOnParser(raw: string): string {
  try {
    return checkRetryOn(raw).join(',');
  } catch (err) {
    throw badInput(
      '--retry-on',
      'a comma-separated list of Envoy retry_on conditions',
      raw,
      (err as Error).message,
    );
  }
}

/** Every arm, in --help and column order. */
export const ARMS = {
  preStopSleepS: arm<number>({
    key: 'prestop-sleep',
    arg: '<s>',
    description: 'arm: httpbin preStop sleep seconds (the 1.28 workaround)',
    parse: seconds('--prestop-sleep'),
    default: 0,
    // Only where httpbin's pods terminate (a rollout, a scale to 0) does a preStop hook run.
    scenarios: ['workload-rollout', 'sidecar-drain'],
    column: { name: 'prestop_sleep_s', note: ', seconds' },
    example: 5,
  }),
  retryOn: arm<string>({
    key: 'retry-on',
    arg: '<list>',
    description: "arm: the gateway route's retry_on, as a VirtualService's retries.retryOn (e.g. add ,reset)",
    parse: retryOnParser,
    default: ISTIO_DEFAULT_RETRY_ON,
    column: { name: 'retry_on', note: ": the gateway's retry_on" },
    example: 'connect-failure,reset',
  }),
  maxConnectionDurationS: arm<number>({
    key: 'max-connection-duration',
    arg: '<s>',
    description:
      "arm: the gateway's upstream max_connection_duration, as a DestinationRule's tcp.maxConnectionDuration; 0 = none",
    parse: seconds('--max-connection-duration'),
    default: 0,
    column: { name: 'max_connection_duration_s', note: ', seconds (0 = none)' },
    example: 30,
  }),
  upstreamIdleTimeoutS: arm<number>({
    key: 'upstream-idle-timeout',
    arg: '<s>',
    description:
      "arm: the gateway's upstream HTTP idle timeout, as a DestinationRule's http.idleTimeout; 0 = Istio's 1 h",
    detail:
      "below go-httpbin's 5 s (its ReadTimeout, which Go also uses as the idle timeout) Envoy closes an idle connection before the app does, so no request meets the app's close (the keep-alive race)",
    parse: seconds('--upstream-idle-timeout'),
    default: 0,
    column: {
      name: 'upstream_idle_timeout_s',
      note: ', seconds (0 = default, 1 h)',
      added: { since: 21, olderRowsRan: '0' },
    },
    example: 4,
  }),
  hboneIdleTimeoutS: arm<number>({
    key: 'hbone-idle-timeout',
    arg: '<s>',
    description:
      "arm: the gateway's HBONE idle timeout (meshConfig.hboneIdleTimeout, Istio 1.29); 0 = Envoy's 1 h",
    parse: seconds('--hbone-idle-timeout'),
    default: 0,
    column: { name: 'hbone_idle_timeout_s', note: ', seconds (0 = default, 1 h)' },
    example: 20,
  }),
  drainStrategy: arm<DrainStrategy>({
    key: 'drain-strategy',
    arg: '<name>',
    description: `arm: ztunnel per-pod drain (${DRAIN_STRATEGIES.join(', ')})`,
    parse: choiceParser('--drain-strategy', DRAIN_STRATEGIES),
    default: 'none',
    column: { name: 'drain_strategy' },
    env: { component: 'ztunnel', name: 'DRAIN_STRATEGY', value: (s) => s },
    requires: (s) =>
      s !== 'none' && {
        capability: 'inPodCapture',
        value: s,
        why: "the strategies act on one pod's listeners",
      },
    example: 'goaway-on-shutdown-start',
  }),
  poolBackoff: arm<boolean>({
    key: 'pool-backoff',
    description:
      "arm: ztunnel's HBONE client pool backs off a destination after failed connects (istio/ztunnel#1191)",
    default: false,
    column: { name: 'pool_backoff', note: ' (1 = on)', render: oneZero },
    env: { component: 'ztunnel', name: 'POOL_BACKOFF', value: (on) => (on ? 'true' : undefined) },
    example: true,
  }),
  tcpMigrateReq: arm<0 | 1>({
    key: 'tcp-migrate-req',
    arg: '<0|1>',
    description: 'arm: net.ipv4.tcp_migrate_req; 1 runs the experiment in its own network namespace (root)',
    parse: (raw) => (choiceParser('--tcp-migrate-req', ['0', '1'] as const)(raw) === '1' ? 1 : 0),
    default: 0,
    column: { name: 'tcp_migrate_req' },
    requires: (v) => v === 1 && { capability: 'perNetnsSysctls', value: 1 },
    example: 1,
  }),
  exitOnZeroActiveConnections: arm<boolean>({
    key: 'exit-on-zero-active-connections',
    description: "arm (sidecar-drain, gateway-rollout): pilot-agent's EXIT_ON_ZERO_ACTIVE_CONNECTIONS",
    detail: "on httpbin's sidecar (sidecar-drain) or on the gateway being rolled (gateway-rollout)",
    default: false,
    // The pilot-agents a fault stops: E4's sidecar beside httpbin, the gateway's own in its rollout
    // (istio/istio#60728: an ambient gateway's internal HBONE listeners kept its count above zero).
    scenarios: ['sidecar-drain', 'gateway-rollout'],
    column: { name: 'exit_on_zero_active_connections', note: ' (1 = on)', render: oneZero },
    example: true,
  }),
  cpuIsolation: arm<CpuIsolation>({
    key: 'cpu-isolation',
    arg: '<mode>',
    description:
      'arm: none | nodes | nodes-pinned: cpu cgroups for the nodes and the generator (root, local)',
    detail:
      "nodes: each node's pods and the load generator in a cpu cgroup of their own, equal cpu.shares; nodes-pinned: plus cpusets, the generator alone on the last CPU, the nodes on the others; cgroup v1",
    parse: choiceParser('--cpu-isolation', CPU_ISOLATION_MODES),
    default: 'none',
    column: {
      name: 'cpu_isolation',
      note: ": none, nodes (a cpu cgroup per node's pods and one for the generator) or nodes-pinned (plus cpusets: the generator on a CPU of its own)",
      added: { since: 8, olderRowsRan: 'none' },
    },
    requires: (m) => m !== 'none' && { capability: 'cpuGroups', value: m },
    example: 'nodes-pinned',
  }),
  readCloseKinds: arm<boolean>({
    key: 'read-close-kinds',
    description: 'measurement: at each drain deadline, which close (RST or FIN) each dropped connection gets',
    detail:
      "our ztunnel reads its sockets' unread bytes (/proc/net/tcp) to tell (deadline_reset_share); it costs 18-115 ms of CPU at the moment it explains, so it is off unless asked",
    default: false,
    column: {
      name: 'read_close_kinds',
      note: ' (1 = on)',
      render: oneZero,
      added: { since: 11, olderRowsRan: '0' },
    },
    env: { component: 'ztunnel', name: 'DRAIN_READ_CLOSE_KINDS', value: (on) => (on ? 'true' : undefined) },
    example: true,
  }),
  // Test only: proves the regression gate (docs/guide/comparing-runs.md). Recorded as bookkeeping, as a
  // build's git_sha is: a planted run is the same configuration from a worse build.
  plantedRegression: arm<PlantedRegression>({
    key: 'plant-regression',
    arg: '<name>',
    description: 'test only, to prove the gate: none | deadline-early | rst-at-deadline | late-removal',
    detail:
      "deadline-early: our ztunnel's drain deadline 5 s early; rst-at-deadline: our ztunnel resets what is left at the deadline instead of closing it; late-removal: the local control plane holds a push that removes a workload 1 s; local backend, our ztunnel (npm run compare catches each)",
    parse: choiceParser('--plant-regression', PLANTED_REGRESSIONS),
    default: 'none',
    column: {
      name: 'planted_regression',
      role: 'bookkeeping',
      note: ': a known regression planted to prove the gate (test only); none in every real run',
      added: { since: 18, olderRowsRan: 'none' },
    },
    env: { component: 'ztunnel', name: PLANTED_REGRESSION_ENV, value: (r) => (r === 'none' ? undefined : r) },
    requires: (r) =>
      r !== 'none' && {
        capability: 'timingModel',
        value: r,
        why: 'the regressions are planted in our ztunnel and our control plane, which the local backend runs',
      },
    example: 'deadline-early',
  }),
};

type ArmKey = keyof typeof ARMS;
type ArmValue<S> = S extends ArmSpec<infer T> ? T : never;

/** The arms' values: one field per entry of ARMS. */
export type MitigationArms = { [K in ArmKey]: ArmValue<(typeof ARMS)[K]> };

/** Each arm's entry with its value's type: ARMS seen per key, so one arm's value meets its own spec. */
const SPECS: { [K in ArmKey]: ArmSpec<MitigationArms[K]> } = ARMS;
const ARM_KEYS = Object.keys(ARMS) as ArmKey[];

export const DEFAULT_ARMS: MitigationArms = Object.fromEntries(
  ARM_KEYS.map((k) => [k, SPECS[k].default]),
) as MitigationArms;

/** Every arm at a value other than its default (tests: a field dropped anywhere shows). */
export const EXAMPLE_ARMS: MitigationArms = Object.fromEntries(
  ARM_KEYS.map((k) => [k, SPECS[k].example]),
) as MitigationArms;

/** The variable an arm sets for `component`, if any. */
// K ties SPECS[k] to arms[k] (one arm's value meets its own spec), which a plain ArmKey would not.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
function envEntry<K extends ArmKey>(k: K, arms: MitigationArms, component: ArmComponent): [string, string][] {
  const spec: ArmSpec<MitigationArms[K]> = SPECS[k];
  if (spec.env?.component !== component) return [];
  const value = spec.env.value(arms[k]);
  return value === undefined ? [] : [[spec.env.name, value]];
}

/** The environment variables `component` gets from the arms (scenario-manifests.ts sets them). */
export function armEnv(arms: MitigationArms, component: ArmComponent): Record<string, string> {
  return Object.fromEntries(ARM_KEYS.flatMap((k) => envEntry(k, arms, component)));
}

/** An arm as a parameter option: its flag, `arms.<key>`, its column with the arms. */
function armParamSpec<K extends ArmKey>(k: K): ParamSpec<MitigationArms[K], MitigationArms[K], never> {
  const spec: ArmSpec<MitigationArms[K]> = SPECS[k];
  const option: ParamSpec<MitigationArms[K], MitigationArms[K], never> = {
    key: spec.key,
    description: spec.description,
    default: spec.default,
    column: { ...spec.column, group: 'arm' },
  };
  if (spec.arg) option.arg = spec.arg;
  if (spec.detail) option.detail = spec.detail;
  if (spec.parse) option.parse = spec.parse;
  if (spec.requires) option.requires = spec.requires;
  if (spec.scenarios) option.scenarios = spec.scenarios;
  return option;
}

/** The arms as table entries (experiment-options.ts puts them in the table). */
export function armOptions(): TableOption[] {
  return ARM_KEYS.map((k) => ({ ...eraseParamSpec(`arms.${k}`, armParamSpec(k)), group: 'arms' as const }));
}
