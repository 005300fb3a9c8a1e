// Known regressions planted on purpose, to prove the regression gate (npm run compare) catches what it
// should: test only. Each is a switch in our own components, recorded in every row
// (planted_regression), so a planted run can never pass for a real one. docs/guide/comparing-runs.md.
export const PLANTED_REGRESSIONS = ['none', 'deadline-early', 'rst-at-deadline', 'late-removal'] as const;
export type PlantedRegression = (typeof PLANTED_REGRESSIONS)[number];

/** deadline-early: our ztunnel's drain deadline this much before the one it computes. */
export const PLANTED_DEADLINE_EARLY_MS = 5000;
/** late-removal: the local control plane holds a push that removes or unreadies a workload this long. */
export const PLANTED_REMOVAL_HOLD_MS = 1000;

/** The environment variable our ztunnel reads it from. */
export const PLANTED_REGRESSION_ENV = 'PLANTED_REGRESSION';

export function parsePlantedRegression(raw: string | undefined): PlantedRegression {
  if (raw === undefined || raw === '') return 'none';
  const found = PLANTED_REGRESSIONS.find((r) => r === raw);
  if (!found)
    throw new Error(
      `Expected ${PLANTED_REGRESSION_ENV} to be one of ${PLANTED_REGRESSIONS.join(', ')}, got ${JSON.stringify(raw)}`,
    );
  return found;
}
