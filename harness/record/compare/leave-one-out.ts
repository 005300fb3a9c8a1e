import { compareRuns } from './compare-runs.ts';
import type { Comparison } from './compare-runs.ts';
import { groupByConfiguration } from './configuration-key.ts';
import type { RunRow } from './read-runs.ts';
import { MIN_BASELINE_RUNS } from './spread-rate-test.ts';

export interface LeaveOneOutRound {
  /** Which run of each configuration was the candidate (0-based). */
  round: number;
  comparison: Comparison;
}

/**
 * The gate's false alarms on one system's runs (an A/A check): round i takes the i-th run of every
 * configuration as the candidate, as a nightly would run it once, and the other runs as the
 * baseline. Configurations with fewer than MIN_BASELINE_RUNS + 1 runs sit out; rounds go as far as
 * the configuration with the most runs allows (a configuration out of runs sits that round out).
 * Every difference the gate reports here is a false alarm: the runs are of the same code.
 */
export function leaveOneOut(rows: readonly RunRow[], alpha: number): LeaveOneOutRound[] {
  const groups = [...groupByConfiguration(rows).values()].filter((g) => g.rows.length > MIN_BASELINE_RUNS);
  const rounds = Math.max(0, ...groups.map((g) => g.rows.length));
  return Array.from({ length: rounds }, (_, round) => {
    const inRound = groups.filter((g) => g.rows.length > round);
    const candidate = inRound.flatMap((g) => g.rows.slice(round, round + 1));
    const baseline = inRound.flatMap((g) => g.rows.filter((_r, i) => i !== round));
    return { round, comparison: compareRuns(baseline, candidate, alpha) };
  });
}

/** One line per round (what said worse, if anything), then the count: every "worse" is a false alarm. */
export function formatLeaveOneOut(rounds: readonly LeaveOneOutRound[]): {
  text: string;
  falseAlarms: number;
} {
  const lines = rounds.map(({ round, comparison }) => {
    const worse = comparison.metrics.filter((m) => m.significance === 'worse');
    const configurations = new Set(comparison.metrics.map((m) => m.configuration)).size;
    const tests = comparison.metrics.filter((m) => m.significance !== 'not gated').length;
    return `round ${String(round + 1)}: run ${String(round + 1)} of ${String(configurations)} configuration(s) against the others, ${String(tests)} gated tests: ${
      worse.length
        ? `WORSE ${worse.map((m) => `${m.configuration} ${m.metric}`).join('; ')}`
        : 'no regression'
    }`;
  });
  const falseAlarms = rounds.filter((r) =>
    r.comparison.metrics.some((m) => m.significance === 'worse'),
  ).length;
  const alpha = rounds[0]?.comparison.alpha ?? 0;
  lines.push(
    rounds.length
      ? `A/A: ${String(falseAlarms)} of ${String(rounds.length)} rounds said worse (false alarms; alpha ${String(alpha)} per round)`
      : `A/A: no configuration has more than ${String(MIN_BASELINE_RUNS)} runs: nothing to check`,
  );
  return { text: `${lines.join('\n')}\n`, falseAlarms };
}
