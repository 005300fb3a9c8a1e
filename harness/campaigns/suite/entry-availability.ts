import { realZtunnelFromEnv } from '../../../clusters/local/upstream-ztunnel.ts';
import { ztunnelBinaryFromEnv } from '../../../clusters/ztunnel-impl.ts';
import { isZtunnelImplName, ZTUNNEL_IMPLS } from '../../../clusters/ztunnel-impl.ts';
import { ErrorCode, isHarnessError } from '../../../lib/index.ts';
import { buildExperimentProgram, CLUSTER_SCENARIOS, paramsFromFlags } from '../../cli/experiment-program.ts';
import type { ExperimentFlags } from '../../cli/experiment-program.ts';
import type { SuiteEntry } from './suite-file.ts';

/** The backend a suite runs on unless `--backend` says another (the registry's first; the option's default). */
export { DEFAULT_BACKEND } from '../../../clusters/registry.ts';

/**
 * Why `backend` cannot run the entry: the refusal the experiment itself gives with `--backend
 * <backend>` (a scenario or an option that needs what the backend lacks: E1 on kind needs in-pod
 * capture), in the table in the entry's place; '' when it can.
 */
export function backendRefusal(entry: Pick<SuiteEntry, 'args'>, backend: string): string {
  const program = buildExperimentProgram().configureOutput({
    writeErr: () => undefined,
    writeOut: () => undefined,
  });
  try {
    const flags = program
      .parse([...entry.args, '--backend', backend], { from: 'user' })
      .opts<ExperimentFlags>();
    const scenario = CLUSTER_SCENARIOS[flags.scenario];
    if (scenario) paramsFromFlags(program, flags, scenario);
    return '';
  } catch (err) {
    if (isHarnessError(err, ErrorCode.BadInput)) return `not available on ${backend}: ${err.message}`;
    throw err;
  }
}

/**
 * Why an entry cannot run on this machine (the table says it in the entry's place), or '' when it
 * can: network namespaces need root (--tcp-migrate-req 1, --netns, --ztunnel-impl istio|istio-shared), so do cpu
 * cgroups (--cpu-isolation), and istio/ztunnel's binary is the user's to bring.
 */
export function entryUnavailable(
  entry: Pick<SuiteEntry, 'flags'>,
  env: Readonly<Record<string, string | undefined>> = process.env,
  uid: number | undefined = process.getuid?.(),
): string {
  const { flags } = entry;
  const impl = ZTUNNEL_IMPLS[isZtunnelImplName(flags['ztunnelImpl']) ? flags['ztunnelImpl'] : 'ours'];
  const istio = impl.isUpstreamBinary;
  const cpuIsolation = typeof flags['cpuIsolation'] === 'string' ? flags['cpuIsolation'] : 'none';
  const namespaces = [
    flags['tcpMigrateReq'] === 1 && 'tcp_migrate_req=1',
    flags['netns'] === true && '--netns',
    impl.needsPodNamespaces && `--ztunnel-impl ${impl.name}`,
  ].filter((f): f is string => typeof f === 'string');
  if (namespaces.length > 0 && uid !== 0)
    return `not available: ${namespaces.join(', ')} needs root for network namespaces`;
  if (cpuIsolation !== 'none' && uid !== 0)
    return `not available: --cpu-isolation ${cpuIsolation} needs root for cpu cgroups`;
  if (istio) {
    // Shared mode asks our CA over gRPC (the suites run the default --istio-shared-ca istiod): the
    // binary alone; dedicated mode runs FAKE_CA and needs the test root too.
    const given = typeof flags['ztunnelBinary'] === 'string' ? flags['ztunnelBinary'] : undefined;
    const real =
      impl.name === 'istio-shared' ? ztunnelBinaryFromEnv(env, given) : realZtunnelFromEnv(env, given);
    if (typeof real === 'string') return `not available: istio/ztunnel ${real}`;
  }
  return '';
}
