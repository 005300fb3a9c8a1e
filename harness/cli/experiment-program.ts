import { isDeepStrictEqual } from 'node:util';
import { Command } from 'commander';
import { commanderOption } from './commander-option.ts';
import { refusal } from '../../clusters/capabilities.ts';
import { allBackendOptions, backendsWithOption, providerOf } from '../../clusters/registry.ts';
import { badInput } from '../../lib/index.ts';
import type { HarnessError } from '../../lib/index.ts';
import type { Requirement } from '../../clusters/capabilities.ts';
import { ZTUNNEL_IMPLS } from '../../clusters/ztunnel-impl.ts';
import type { ZtunnelImplName } from '../../clusters/ztunnel-impl.ts';
import type { ClusterScenario } from '../run/cluster-scenario.ts';
import type { ExperimentParams } from '../options/experiment-params.ts';
import { experimentOptions } from '../options/experiment-options.ts';
import type { ExperimentFlags } from '../options/experiment-options.ts';
import { attributeOf } from '../options/option.ts';
import type { TableOption } from '../options/option.ts';
import { paramsOf } from '../options/params.ts';
import { NEEDS_IN_POD_CAPTURE, NEEDS_IN_POD_ZTUNNEL } from '../run/scenario-manifests.ts';
import { CLUSTER_SCENARIOS, SCENARIO_NAMES } from '../run/scenarios/index.ts';
import { DURATION_FORMS } from '../options/duration.ts';
import { commandsHelp } from './commands.ts';
import { suitePath } from './suite-path.ts';

export type { ExperimentFlags };

/** The table with --scenario's choices and --suite's check, which live above it. */
function programOptions(): TableOption[] {
  return experimentOptions({ names: SCENARIO_NAMES }).map((o) =>
    o.key === 'suite'
      ? {
          ...o,
          parse: (value: string) => {
            suitePath(value);
            return value;
          },
        }
      : o,
  );
}

export function buildExperimentProgram(): Command {
  const program = new Command('experiment').description(
    'Drive fortio load (or your k6) through a cluster, restart something mid-run, and report what was lost.',
  );
  for (const spec of programOptions()) program.addOption(commanderOption(spec));
  program.usage('[command] [options]');
  program.addHelpText('after', `\n${commandsHelp()}\n\nOptions in seconds (<s>) take ${DURATION_FORMS}.`);
  return program.exitOverride().showHelpAfterError('(run with --help for usage)');
}

/** What the experiment asks of its backend: the scenario's needs, then each option's (the table). */
function requirementsOf(
  table: readonly TableOption[],
  flags: ExperimentFlags,
  scenario: ClusterScenario,
  params: ExperimentParams,
): Requirement[] {
  const asked: (Requirement | false)[] = [
    ...(scenario.requires ?? []).map((r) => ({ ...r, flag: '--scenario', value: scenario.name })),
    // A plain gateway sends plaintext to the pod's address; only in-pod capture puts ztunnel on
    // that path. Without it the row would say mesh=ambient and measure no ztunnel at all.
    params.gatewayMode === 'plain' &&
      params.mesh === 'ambient' && {
        capability: 'inPodZtunnel',
        flag: '--gateway-mode',
        value: 'plain',
        why: `with --mesh ambient ${NEEDS_IN_POD_CAPTURE}; use --gateway-mode hbone (the mesh-aware gateway) or --mesh off`,
      },
    ...table.map((spec): Requirement | false => {
      const needs = spec.requires?.(flags[attributeOf(spec.key)]);
      return needs ? { ...needs, flag: `--${spec.key}` } : false;
    }),
  ];
  return asked.filter((r): r is Requirement => r !== false);
}

/** What the scenario cannot run with: a ztunnel implementation that cannot serve it, then its own refusals. */
function scenarioRefusal(
  table: readonly TableOption[],
  scenario: ClusterScenario,
  params: ExperimentParams,
  flags: ExperimentFlags,
): HarnessError | undefined {
  const impl = ZTUNNEL_IMPLS[params.ztunnelImpl];
  if (impl.name !== 'ours' && !(scenario.ztunnelImpls?.includes(impl.name) && params.mesh === 'ambient'))
    return badInput(
      '--ztunnel-impl',
      `ours, unless --scenario ${scenarioNamesServing(impl.name).join('|')} with --mesh ambient`,
      `${impl.name} with --scenario ${scenario.name} --mesh ${params.mesh}`,
      impl.serves,
    );
  return (
    nodeAddressRefusal(scenario, params) ??
    scopedOptionRefusal(table, flags, scenario) ??
    otherBackendOptionRefusal(flags, params) ??
    scenario.refuses?.(params)
  );
}

/** kind's node-address ztunnel cannot serve what needs ztunnel in the pods. */
function nodeAddressRefusal(scenario: ClusterScenario, params: ExperimentParams): HarnessError | undefined {
  if (params.ztunnelMode !== 'node-address') return undefined;
  if (scenario.requires?.some((r) => r.capability === 'inPodZtunnel'))
    return badInput(
      '--ztunnel-mode',
      `in-pod with --scenario ${scenario.name}`,
      'node-address',
      NEEDS_IN_POD_ZTUNNEL,
    );
  if (params.gatewayMode === 'plain' && params.mesh === 'ambient')
    return badInput(
      '--ztunnel-mode',
      'in-pod with --gateway-mode plain',
      'node-address',
      NEEDS_IN_POD_CAPTURE,
    );
  return undefined;
}

/** An option only some scenarios read (its `scenarios`), set away from its default with another. */
function scopedOptionRefusal(
  table: readonly TableOption[],
  flags: ExperimentFlags,
  scenario: ClusterScenario,
): HarnessError | undefined {
  for (const spec of table) {
    if (!spec.scenarios || spec.scenarios.includes(scenario.name)) continue;
    const value = flags[attributeOf(spec.key)];
    if (value === undefined || isDeepStrictEqual(value, spec.default)) continue;
    return badInput(
      `--${spec.key}`,
      `left at its default (${String(spec.default)}) with --scenario ${scenario.name}`,
      value,
      `only --scenario ${spec.scenarios.join('|')} read it (no component of ${scenario.name} would act on it, yet the row would record it): drop it or choose one of those scenarios`,
    );
  }
  return undefined;
}

/**
 * Another backend's option, given away from its default: nothing of this run would read it (and
 * `--backend local --control-plane istio` ran a local E1 as if asked nothing), so it is refused.
 */
function otherBackendOptionRefusal(
  flags: ExperimentFlags,
  params: ExperimentParams,
): HarnessError | undefined {
  const own = new Set(providerOf(params.backend).options.map((o) => o.key));
  for (const o of allBackendOptions()) {
    if (own.has(o.key)) continue;
    const value = flags[attributeOf(o.key)];
    if (value === undefined || isDeepStrictEqual(value, o.default)) continue;
    const owners = backendsWithOption(o.key);
    return badInput(
      `--${o.key}`,
      `an option of --backend ${params.backend}`,
      value,
      `it is --backend ${owners.join('|')}'s: drop it, or run with --backend ${owners[0] ?? ''}`,
    );
  }
  return undefined;
}

const scenarioNamesServing = (impl: Exclude<ZtunnelImplName, 'ours'>): string[] =>
  Object.values(CLUSTER_SCENARIOS)
    .filter((s) => s.ztunnelImpls?.includes(impl))
    .map((s) => s.name);

/** The run's parameters: the user's flags, else the scenario's defaults, else the table's. */
export function paramsFromFlags(
  program: Command,
  flags: ExperimentFlags,
  scenario: ClusterScenario,
): ExperimentParams {
  const given = (attribute: string): boolean => {
    const source = program.getOptionValueSource(attribute);
    return source !== undefined && source !== 'default';
  };
  // The table built once for the parameters and every check on them.
  const table = experimentOptions();
  const params = paramsOf(table, flags, scenario, given);
  const refused =
    refusal(params.backend, requirementsOf(table, flags, scenario, params)) ??
    scenarioRefusal(table, scenario, params, flags);
  if (refused) throw refused;
  return params;
}

export { CLUSTER_SCENARIOS };
