export { compareRuns } from './compare-runs.ts';
export type { Comparison, MetricComparison, Significance } from './compare-runs.ts';
export { failsGate, formatComparison } from './format-comparison.ts';
export { readRuns } from './read-runs.ts';
export type { RunRow } from './read-runs.ts';
export { comparisonJUnit } from './comparison-junit.ts';
export { formatLeaveOneOut, leaveOneOut } from './leave-one-out.ts';
export type { LeaveOneOutRound } from './leave-one-out.ts';
