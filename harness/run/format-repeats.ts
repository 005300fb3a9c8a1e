import { median } from '../../lib/median.ts';
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
    return `min ${String(Math.min(...values))} / median ${String(median(values))} / max ${String(Math.max(...values))}`;
  };
  lines.push(`503s: ${stats(rows.map((r) => num(r, 'http_503')))}; failed: ${stats(rows.map(failed))}`);
  return `${lines.join('\n')}\n`;
}
