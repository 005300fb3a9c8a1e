// The end of `npm run check`: the ten slowest test files, every skip with its reason in one list,
// each step's time, and the closing line `tests: N passed, N failed, N skipped`.
import type { TierStats } from './test-stats-reporter.ts';

export function mergeStats(tiers: readonly TierStats[]): TierStats {
  return {
    passed: tiers.reduce((n, t) => n + t.passed, 0),
    failed: tiers.reduce((n, t) => n + t.failed, 0),
    skipped: tiers.reduce((n, t) => n + t.skipped, 0),
    todo: tiers.reduce((n, t) => n + t.todo, 0),
    fileSeconds: Object.assign({}, ...tiers.map((t) => t.fileSeconds)) as Record<string, number>,
    skips: tiers.flatMap((t) => t.skips),
  };
}

export function formatSummary(
  stats: TierStats,
  steps: readonly { name: string; exitCode: number; seconds: number }[],
): string {
  const slowest = Object.entries(stats.fileSeconds)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10);
  const lines = [
    '',
    'the ten slowest test files (seconds of test time):',
    ...slowest.map(([file, s]) => `  ${s.toFixed(1).padStart(6)}  ${file}`),
    `skipped (${String(stats.skips.length)}):`,
    ...(stats.skips.length === 0
      ? ['  none']
      : stats.skips.map((s) => `  - ${s.file}: ${s.name}: ${s.reason}`)),
    `steps: ${steps.map((s) => `${s.name} ${s.seconds.toFixed(0)} s${s.exitCode === 0 ? '' : ` (exit ${String(s.exitCode)})`}`).join(', ')}`,
    `tests: ${String(stats.passed)} passed, ${String(stats.failed)} failed, ${String(stats.skipped)} skipped`,
  ];
  return `${lines.join('\n')}\n`;
}
