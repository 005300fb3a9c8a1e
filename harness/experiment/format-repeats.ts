/** The ASM table's shape: one line per repetition, then min / median / max. */
export function formatRepeats(rows: Record<string, string | number>[]): string {
  const num = (r: Record<string, string | number>, k: string): number => Number(r[k]);
  const failed = (r: Record<string, string | number>): number => num(r, 'requests') - num(r, 'ok');
  const lines = ['run  requests  http_503  failed  bursts  verdict'];
  rows.forEach((r, i) => {
    lines.push(
      `${String(i + 1).padStart(3)}  ${String(num(r, 'requests')).padStart(8)}  ${String(num(r, 'http_503')).padStart(8)}  ${String(failed(r)).padStart(6)}  ${String(num(r, 'bursts')).padStart(6)}  ${String(r['verdict'])}`,
    );
  });
  const stats = (values: number[]): string => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length / 2;
    const median =
      sorted.length % 2
        ? (sorted[Math.floor(mid)] ?? NaN)
        : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
    return `min ${String(sorted[0])} / median ${String(median)} / max ${String(sorted.at(-1))}`;
  };
  lines.push(`503s: ${stats(rows.map((r) => num(r, 'http_503')))}; failed: ${stats(rows.map(failed))}`);
  return `${lines.join('\n')}\n`;
}
