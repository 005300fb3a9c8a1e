export { compareRuns } from './compare-runs.ts';
export type { Comparison, MetricComparison, Significance } from './compare-runs.ts';
export { formatComparison } from './format-comparison.ts';
export { readRuns } from './read-runs.ts';
export type { RunRow } from './read-runs.ts';
export { comparisonJUnit } from './comparison-junit.ts';
