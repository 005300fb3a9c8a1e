import type { Clock } from '../../lib/index.ts';

export interface DrainSettings {
  /** terminationDrainDuration: how long pilot-agent waits before exiting (default 5 s). */
  terminationDrainDurationMs: number;
  /** EXIT_ON_ZERO_ACTIVE_CONNECTIONS: exit once no connection is active instead of after the fixed wait. */
  exitOnZeroActiveConnections: boolean;
  /** MINIMUM_DRAIN_DURATION: with EXIT_ON_ZERO, the wait before polling starts (default 5 s). */
  minimumDrainDurationMs: number;
  /** Poll period for active connections (pilot-agent checks every 1 s). */
  pollIntervalMs: number;
}

export const DEFAULT_DRAIN_SETTINGS: DrainSettings = {
  terminationDrainDurationMs: 5000,
  exitOnZeroActiveConnections: false,
  minimumDrainDurationMs: 5000,
  pollIntervalMs: 1000,
};

/**
 * pilot-agent's SIGTERM handling (istio pkg/istio-agent, pilot/cmd/pilot-agent): start Envoy's
 * graceful drain at once, then either wait terminationDrainDuration, or (EXIT_ON_ZERO_ACTIVE_CONNECTIONS)
 * wait MINIMUM_DRAIN_DURATION and poll downstream_cx_active every second until it reaches zero.
 * Resolves when the proxy should exit; Kubernetes' SIGKILL remains the backstop.
 */
export async function drainLikePilotAgent(options: {
  clock: Clock;
  settings: DrainSettings;
  startDrain: () => void;
  /** Envoy's active downstream connections; -1 when the stat is missing (pilot-agent then exits). */
  activeConnections: () => number | Promise<number>;
  onPoll?: (active: number) => void;
}): Promise<{ waitedMs: number; reason: 'drain-duration' | 'zero-connections' | 'stats-errors' }> {
  const { clock, settings } = options;
  const startMs = clock.now();
  options.startDrain();
  if (!settings.exitOnZeroActiveConnections) {
    await clock.sleep(settings.terminationDrainDurationMs);
    return { waitedMs: clock.now() - startMs, reason: 'drain-duration' };
  }
  await clock.sleep(settings.minimumDrainDurationMs);
  // pkg/envoy/agent.go: exit at zero (or a missing stat), or after 5 failed checks in a row.
  let errors = 0;
  for (;;) {
    let active: number | undefined;
    try {
      active = await options.activeConnections();
      errors = 0;
    } catch {
      if (++errors >= 5) return { waitedMs: clock.now() - startMs, reason: 'stats-errors' };
    }
    if (active !== undefined) {
      options.onPoll?.(active);
      if (active <= 0) return { waitedMs: clock.now() - startMs, reason: 'zero-connections' };
    }
    await clock.sleep(settings.pollIntervalMs);
  }
}
