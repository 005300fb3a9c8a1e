// When the fault ran, where the old ztunnels' drain deadlines fell, and E1's count against its
// mechanism over them (deadline-accounting.ts).
import { median } from '../../../lib/median.ts';
import { medianLagMs } from '../../explain/removal-lag.ts';
import type { DeadlineAccount } from '../../explain/deadline-accounting.ts';
import { projectCount } from '../../explain/deadline-accounting.ts';
import type { BurstExplanation } from '../../explain/explain-bursts.ts';
import { poissonInterval } from '../../explain/poisson.ts';
import type { Cell } from './column.ts';
import { section } from './column.ts';
import type { RowInput } from './row-input.ts';

export const ROLLOUT_SECTION = section(
  {
    rollout_started_s: 'when the fault (rollout restart or scale) started, seconds from load start',
    rollout_status_complete_s: "when `kubectl rollout status`'s predicate held",
    rollout_old_pods_gone_s: 'when the last old pod was gone',
    // Schema 17: the 1.28 report's lag, measured where the components log it.
    removal_lag_ms: {
      role: 'measure',
      note: "the terminating pods' app exit to ztunnel's removal of the pod, median over the pods, ms (local: the control plane's push of the removal, its timing model's; kind: ztunnel's own xDS line, istio/ztunnel's or ours); empty when no pod's removal was seen",
      added: { since: 17, olderRowsRan: '' },
    },
    removal_lag_max_ms: {
      role: 'measure',
      note: 'the longest of those lags, ms',
      added: { since: 17, olderRowsRan: '' },
    },
  },
  ({ facts, rel }: RowInput) => {
    const lags = facts.removalLags ?? [];
    return {
      rollout_started_s: rel(facts.rollout?.startedAtMs),
      rollout_status_complete_s: rel(facts.rollout?.statusCompleteAtMs),
      rollout_old_pods_gone_s: rel(facts.rollout?.oldPodsGoneAtMs),
      removal_lag_ms: medianLagMs(lags) ?? '',
      removal_lag_max_ms: lags.length > 0 ? Math.round(Math.max(...lags.map((l) => l.lagMs))) : '',
    };
  },
);

/**
 * Where the old ztunnels' drain deadlines fell (seconds from load start, space-separated; those past
 * the end of the load cost nothing), and what the deadline bursts were made of: failures sent
 * before each drop (in flight toward or inside the old ztunnel), after it (onto a connection the
 * gateway had not yet seen close), and the gateway's longest reaction time.
 */
export const DEADLINE_SECTION = section(
  {
    drain_deadlines_s: "the old ztunnels' drain deadlines, seconds from load start, space-separated",
    deadline_failed_before_drop: 'failures at the deadlines sent before the drop',
    deadline_failed_after_drop:
      'failures sent after the drop, onto a connection the gateway had not seen close',
    deadline_dropped_in_flight: 'connections dropped at a deadline with a request in flight inside ztunnel',
    deadline_gateway_reaction_ms: "the gateway's longest reaction time to a dropped connection, ms",
    bursts_after_sigterm: "bursts that start after their cause's SIGTERM",
  },
  ({ facts, rel }: RowInput) => {
    const d = facts.deadlines;
    const drops = d?.explanations.filter((e) => e.mechanism === 'drain-deadline') ?? [];
    const sum = (f: (e: BurstExplanation) => number | undefined): Cell =>
      d ? drops.reduce((n, e) => n + (f(e) ?? 0), 0) : '';
    return {
      drain_deadlines_s: d ? d.atMs.map((ms) => rel(ms)).join(' ') : '',
      deadline_failed_before_drop: sum((e) => e.failedBeforeDrop),
      deadline_failed_after_drop: sum((e) => e.failedAfterDrop),
      deadline_dropped_in_flight: sum((e) => e.droppedInFlight),
      deadline_gateway_reaction_ms: d ? Math.max(0, ...drops.map((e) => e.gatewayReactionMs ?? 0)) : '',
      bursts_after_sigterm: d ? d.explanations.filter((e) => e.startsAfterSigterm === true).length : '',
    };
  },
);

const ACCOUNT_NOTES = {
  deadline_accounted: 'E1: the failed requests attributed to the drain deadlines inside the load',
  deadline_predicted:
    "E1: the mechanism's count if each old ztunnel's close is a reset: rate on the connections it closed x (T_past + L), summed over deadlines",
  deadline_predicted_fin:
    "E1: the mechanism's count if the close is a FIN: ztunnel's own in_flight at the deadline + rate x L, summed",
  deadline_predicted_low: 'E1: the 2.5 % Poisson quantile of deadline_predicted_fin',
  deadline_predicted_high: 'E1: the 97.5 % Poisson quantile of deadline_predicted',
  deadline_inside: 'E1: 1 when deadline_accounted lies in [deadline_predicted_low, deadline_predicted_high]',
  deadline_rate_per_s: 'E1: requests per second on the connections a deadline closed, mean over deadlines',
  deadline_t_past_ms:
    "E1: T_past, the mean time a request spent past the gateway on those connections (Envoy's first byte upstream to the response's first byte), rate-weighted",
  deadline_l_ms: "E1: L, the gateway's mean delay in seeing a closed connection close, rate-weighted",
  deadline_cpu_wait_pct:
    "E1: of the runnable time of the path's processes (gateway, ztunnel, httpbin) in the second after each deadline, the share spent waiting for a CPU, %",
  deadline_projected_rate_per_s:
    "`--project-rate`: the rate the projection answers for (ASM's 4,800 req/s by default)",
  deadline_projected:
    "E1: the count this run's mechanism gives at deadline_projected_rate_per_s, every deadline's reset prediction scaled by that rate over the run's (a projection, not a measurement)",
  deadline_projected_at_1ms:
    "E1: the same with T_past + L at one millisecond at every deadline (ASM's setting)",
  deadline_reset_share:
    "E1: of the connections the old ztunnels dropped, the share riding a socket with unread bytes at the drop (rx_queue of /proc/self/net/tcp and, with --netns, each pod namespace's table, read by ztunnel as it reaches the deadline, 35-107 ms before the drop with --netns; deadline_wire_rst is the drop's own): their close() sends RST, the others get a FIN; rate-weighted over the deadlines (a connection is a tunnel: a busy HBONE socket carries many); empty unless --read-close-kinds, or where it predates the figure",
  deadline_wire_fin:
    "E1: the HBONE connections the old ztunnels' deadlines closed with a FIN, as the gateway received them: first FIN or RST from a pod's :15008 within [-100 ms, +1 s) of each deadline, captured by tcpdump on the network world's uplink (--netns or --ztunnel-impl istio-shared, with tcpdump installed); empty otherwise",
  deadline_wire_rst: 'E1: the same connections closed with a RST',
  // Schema 18: what compare gates on (harness/record/compare/gate-figures.ts).
  deadline_after_sigterm_ms: {
    role: 'measure',
    note: "E1: from each old ztunnel's SIGTERM to its drain deadline, ms, median over the deadlines (the drain period ztunnel computed from the grace; its own log lines)",
    added: { since: 18, olderRowsRan: '' },
  },
} as const;

type AccountColumn = keyof typeof ACCOUNT_NOTES;

const emptyAccount = (): Record<AccountColumn, Cell> =>
  Object.fromEntries(Object.keys(ACCOUNT_NOTES).map((n) => [n, ''])) as Record<AccountColumn, Cell>;

/**
 * E1's count against its mechanism over the run's deadlines: the summed predictions (reset: rate x
 * (T_past + L); FIN: in_flight + rate x L) and the interval from the FIN sum's 2.5 % to the reset
 * sum's 97.5 % Poisson quantile (a sum of Poisson counts is Poisson), the count accounted for,
 * whether it lies inside, and the terms (rate-weighted means).
 */
export const ACCOUNT_SECTION = section(ACCOUNT_NOTES, ({ facts, params, tally }: RowInput) => {
  const accounts = facts.deadlines?.accounts;
  if (!accounts?.length) return emptyAccount();
  const runRatePerS = tally && params.durationS > 0 ? tally.total / params.durationS : undefined;
  const projectRatePerS = params.projectRatePerS;
  const total = (f: (a: DeadlineAccount) => number): number => accounts.reduce((n, a) => n + f(a), 0);
  const predicted = total((a) => a.predicted);
  const predictedFin = total((a) => a.predictedFin);
  const accounted = total((a) => a.count);
  const low = poissonInterval(predictedFin)[0];
  const high = poissonInterval(predicted)[1];
  const rate = total((a) => a.ratePerS);
  const weighted = (f: (a: DeadlineAccount) => number): number =>
    rate > 0 ? total((a) => f(a) * a.ratePerS) / rate : 0;
  const afterSigterm = accounts.flatMap((a) => (a.afterSigtermMs === undefined ? [] : [a.afterSigtermMs]));
  const waits = accounts.flatMap((a) => (a.cpuWaitShare === undefined ? [] : [a.cpuWaitShare]));
  return {
    deadline_accounted: accounted,
    deadline_predicted: predicted.toFixed(1),
    deadline_predicted_fin: predictedFin.toFixed(1),
    deadline_predicted_low: low,
    deadline_predicted_high: high,
    deadline_inside: accounted >= low && accounted <= high ? 1 : 0,
    deadline_rate_per_s: (rate / accounts.length).toFixed(0),
    deadline_t_past_ms: weighted((a) => a.pastGatewayMs).toFixed(2),
    deadline_l_ms: weighted((a) => a.reactionMs).toFixed(2),
    deadline_cpu_wait_pct: waits.length
      ? ((waits.reduce((a, b) => a + b, 0) / waits.length) * 100).toFixed(0)
      : '',
    deadline_projected_rate_per_s: projectRatePerS,
    deadline_projected: runRatePerS ? projectCount(accounts, runRatePerS, projectRatePerS).toFixed(1) : '',
    // The same with every deadline's T_past + L at ASM's millisecond: rate x 1 ms per deadline.
    deadline_projected_at_1ms: runRatePerS
      ? ((rate / 1000) * (projectRatePerS / runRatePerS)).toFixed(1)
      : '',
    // Of the connections the deadlines dropped, the rate-weighted share whose close was a RST.
    deadline_reset_share: accounts.every((a) => a.closeKinds !== undefined)
      ? weighted((a) => a.closeKinds?.resetShare ?? 0).toFixed(2)
      : '',
    ...wireCells(accounts),
    deadline_after_sigterm_ms: afterSigterm.length ? Math.round(median(afterSigterm)) : '',
  };
});

/** The deadlines' HBONE closes as the gateway received them (tcpdump), summed; empty without a capture. */
function wireCells(
  accounts: readonly DeadlineAccount[],
): Record<'deadline_wire_fin' | 'deadline_wire_rst', Cell> {
  const known = accounts.every((a) => a.wire !== undefined);
  const sum = (f: (w: { fin: number; rst: number }) => number): Cell =>
    known ? accounts.reduce((n, a) => n + (a.wire ? f(a.wire) : 0), 0) : '';
  return { deadline_wire_fin: sum((w) => w.fin), deadline_wire_rst: sum((w) => w.rst) };
}
