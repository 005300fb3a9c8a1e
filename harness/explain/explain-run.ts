import type { LifecycleEvent } from '../../clusters/events.ts';
import { explainBurst } from './explain-bursts.ts';
import type { BurstExplanation } from './explain-bursts.ts';
import { readGatewayAccessLog } from './gateway-access-log.ts';
import { groupFailuresByCause } from './group-by-cause.ts';
import type { CauseBurst } from './group-by-cause.ts';

export interface RunExplanation {
  /** The gateway's failures grouped by cause: one burst per cause. */
  bursts: CauseBurst[];
  /** One per burst, in the bursts' order. */
  explanations: BurstExplanation[];
  /** The gateway's access log over the whole run: requests it finished, and its own failures. */
  gateway: { requests: number; failures: number };
}

/**
 * Every failure the gateway logged, grouped by its cause and explained from the components' own
 * logs in the run's container-log folder (local backend): the ztunnels' drain-deadline lines
 * (already lifecycle events) and the gateway's access log (read here, after the run).
 */
export async function explainRun(options: {
  logDir: string;
  events: readonly LifecycleEvent[];
  /** The run clock's wall-clock offset: access-log times are wall clock. */
  wallOffsetMs: number;
}): Promise<RunExplanation> {
  const log = await readGatewayAccessLog(options.logDir);
  const failures = log.failures.map((entry) => ({
    startMs: entry.startWallMs - options.wallOffsetMs,
    entry,
  }));
  const bursts = groupFailuresByCause(failures, options.events);
  return {
    bursts,
    explanations: bursts.map((b) => explainBurst(b, options.events, b.failuresList)),
    gateway: { requests: log.requests, failures: log.failures.length },
  };
}
