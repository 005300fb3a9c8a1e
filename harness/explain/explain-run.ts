import type { LifecycleEvent } from '../../clusters/events.ts';
import { explainBurst } from './explain-bursts.ts';
import type { BurstExplanation } from './explain-bursts.ts';
import { formatFailureKinds, groupFailureKinds } from './failure-details.ts';
import type { FailureKind } from './failure-details.ts';
import { readGatewayAccessLog } from './gateway-access-log.ts';
import { groupFailuresByCause } from './group-by-cause.ts';
import type { CauseBurst } from './group-by-cause.ts';

/** What Envoy logged about the gateway's failures, over the whole run. */
export interface GatewayEvidence {
  /** The failures by status, flags, %RESPONSE_CODE_DETAILS% and failed tunnel, most first. */
  failureKinds: FailureKind[];
  /** `[connect_originate]` lines: HBONE tunnels Envoy could not open. */
  tunnelFailures: number;
  /** Those behind a failed request (the rest: attempts retried on another endpoint). */
  tunnelFailuresJoined: number;
}

export interface RunExplanation {
  /** The gateway's failures grouped by cause: one burst per cause. */
  bursts: CauseBurst[];
  /** One per burst, in the bursts' order. */
  explanations: BurstExplanation[];
  /** The gateway's access log over the whole run: requests it finished, and its own failures. */
  gateway: { requests: number; failures: number };
  evidence: GatewayEvidence;
}

/**
 * Every failure the gateway logged, grouped by its cause and explained from the components' own
 * logs in the run's container-log folder (local backend): the ztunnels' drain-deadline lines
 * (already lifecycle events) and the gateway's access log (read here, after the run). Each burst's
 * explanation ends with what Envoy said about its failures.
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
  const explanations = bursts.map((b) => {
    const explained = explainBurst(b, options.events, b.failuresList);
    const kinds = groupFailureKinds(b.failuresList.map((f) => f.entry));
    return { ...explained, text: `${explained.text}; Envoy: ${formatFailureKinds(kinds)}` };
  });
  return {
    bursts,
    explanations,
    gateway: { requests: log.requests, failures: log.failures.length },
    evidence: {
      failureKinds: groupFailureKinds(log.failures),
      tunnelFailures: log.tunnelFailures.length,
      tunnelFailuresJoined: log.failures.filter((f) => f.tunnel).length,
    },
  };
}

/** The run's failures by Envoy's details, and the tunnel failures, in one line. */
export function formatGatewayEvidence(evidence: GatewayEvidence): string {
  const kinds = evidence.failureKinds.length ? formatFailureKinds(evidence.failureKinds) : 'none';
  const tunnels = evidence.tunnelFailures
    ? `; HBONE tunnels not opened: ${String(evidence.tunnelFailures)}, ${String(evidence.tunnelFailuresJoined)} behind a failed request`
    : '';
  return `gateway failures by Envoy's response details: ${kinds}${tunnels}`;
}
