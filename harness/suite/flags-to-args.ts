import type { ExperimentFlags } from '../cli/experiment-program.ts';

/** The `npm run experiment` arguments that reproduce a set of flags (for children and the table). */
export function flagsToArgs(flags: Partial<ExperimentFlags>): string[] {
  const args: string[] = [];
  const add = (name: string, value: string | number | undefined): void => {
    if (value !== undefined) args.push(name, String(value));
  };
  add('--scenario', flags.scenario);
  add('--backend', flags.backend);
  add('--path', flags.path);
  add('--timeout', flags.timeout);
  add('--replicas', flags.replicas);
  add('--max-failed', flags.maxFailed);
  add('--mesh', flags.mesh);
  add('--qps', flags.qps);
  add('-c', flags.connections);
  add('--duration', flags.duration);
  add('--grace', flags.grace);
  add('--restart-at', flags.restartAt);
  add('--gateway-concurrency', flags.gatewayConcurrency);
  add('--gateway-mode', flags.gatewayMode);
  add('--repeat', flags.repeat);
  add('--prestop-sleep', flags.prestopSleep);
  add('--retry-on', flags.retryOn);
  add('--max-connection-duration', flags.maxConnectionDuration);
  add('--hbone-idle-timeout', flags.hboneIdleTimeout);
  add('--drain-strategy', flags.drainStrategy);
  add('--mesh-client', flags.meshClient);
  if (flags.poolBackoff) args.push('--pool-backoff');
  add('--tcp-migrate-req', flags.tcpMigrateReq);
  for (const [name, ms] of Object.entries(flags.timing ?? {})) add('--timing', `${name}=${String(ms)}`);
  if (flags.exitOnZeroActiveConnections) args.push('--exit-on-zero-active-connections');
  add('--results-dir', flags.resultsDir);
  return args;
}
