import type { CpuIsolation } from '../../clusters/local/index.ts';
import type { DrainStrategy } from '../../ztunnel/drain-strategy.ts';
import { ISTIO_DEFAULT_RETRY_ON } from '../../mesh/xds/route-policy.ts';

/**
 * The mitigations docs/architecture.md names (Experiments), each a switch recorded in the result row. Two more are
 * ordinary parameters: longer grace (--grace) and a lower control-plane debounce
 * (--timing debounceQuietMs=...).
 */
export interface MitigationArms {
  /** httpbin preStop `sleep` seconds (the 1.28 thread's workaround); 0 = none. */
  preStopSleepS: number;
  /** The gateway's retry_on; Istio's default unless changed (e.g. with `reset` added). */
  retryOn: string;
  /** The gateway's upstream max connection duration (the ASM advice); 0 = none (Envoy's default). */
  maxConnectionDurationS: number;
  /** The gateway's HBONE connection idle timeout (Istio 1.29 hboneIdleTimeout); 0 = default. */
  hboneIdleTimeoutS: number;
  /** ztunnel's per-pod drain option (istio/ztunnel#1191); `none` is upstream. */
  drainStrategy: DrainStrategy;
  /** ztunnel's HBONE client pool backs off a destination after failed connects (#1191's proposal). */
  poolBackoff: boolean;
  /** net.ipv4.tcp_migrate_req in the run's network namespace (1 needs root: a fresh netns). */
  tcpMigrateReq: 0 | 1;
  /** Sidecar scenarios: pilot-agent's EXIT_ON_ZERO_ACTIVE_CONNECTIONS. */
  exitOnZeroActiveConnections: boolean;
  /**
   * Local backend: each node's pods, and the load generator, in a cpu cgroup of their own with equal
   * cpu.shares (`nodes`), plus cpusets putting the generator on a CPU of its own (`nodes-pinned`);
   * `none` shares every core as before (docs/local-cluster.md, CPU isolation).
   */
  cpuIsolation: CpuIsolation;
}

export const DEFAULT_ARMS: MitigationArms = {
  preStopSleepS: 0,
  retryOn: ISTIO_DEFAULT_RETRY_ON,
  maxConnectionDurationS: 0,
  hboneIdleTimeoutS: 0,
  drainStrategy: 'none',
  poolBackoff: false,
  tcpMigrateReq: 0,
  exitOnZeroActiveConnections: false,
  cpuIsolation: 'none',
};

/** The arms as summary-row columns (always all of them, so rows of different arms line up). */
export function armColumns(arms: MitigationArms): Record<string, string | number> {
  return {
    prestop_sleep_s: arms.preStopSleepS,
    retry_on: arms.retryOn,
    max_connection_duration_s: arms.maxConnectionDurationS,
    hbone_idle_timeout_s: arms.hboneIdleTimeoutS,
    drain_strategy: arms.drainStrategy,
    pool_backoff: arms.poolBackoff ? 1 : 0,
    tcp_migrate_req: arms.tcpMigrateReq,
    exit_on_zero_active_connections: arms.exitOnZeroActiveConnections ? 1 : 0,
    cpu_isolation: arms.cpuIsolation,
  };
}

/** The arms that differ from the defaults, as a short label (`preStop 5 s, retry +reset`). */
export function describeArms(arms: MitigationArms): string {
  const parts: string[] = [];
  if (arms.preStopSleepS > 0) parts.push(`preStop sleep ${String(arms.preStopSleepS)} s`);
  if (arms.retryOn !== DEFAULT_ARMS.retryOn) {
    const base = new Set(DEFAULT_ARMS.retryOn.split(','));
    const added = arms.retryOn.split(',').filter((c) => !base.has(c));
    parts.push(added.length ? `retry_on +${added.join(',+')}` : `retry_on ${arms.retryOn}`);
  }
  if (arms.maxConnectionDurationS > 0)
    parts.push(`max connection duration ${String(arms.maxConnectionDurationS)} s`);
  if (arms.hboneIdleTimeoutS > 0) parts.push(`HBONE idle timeout ${String(arms.hboneIdleTimeoutS)} s`);
  if (arms.drainStrategy !== 'none') parts.push(`drain ${arms.drainStrategy}`);
  if (arms.poolBackoff) parts.push('pool back-off');
  if (arms.tcpMigrateReq === 1) parts.push('tcp_migrate_req=1');
  if (arms.exitOnZeroActiveConnections) parts.push('EXIT_ON_ZERO_ACTIVE_CONNECTIONS');
  if (arms.cpuIsolation !== 'none') parts.push(`cpu isolation ${arms.cpuIsolation}`);
  return parts.join(', ');
}
