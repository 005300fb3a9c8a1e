import type { LoadCounts } from './load-counts.ts';

/** k6 error codes seen in the harness's failure classes (https://grafana.com/docs/k6/latest/javascript-api/error-codes/). */
const K6_ERROR_NAMES: Readonly<Record<number, string>> = {
  1000: 'generic error',
  1050: 'request timeout',
  1201: 'broken pipe',
  1210: 'dial error',
  1211: 'dial timeout',
  1212: 'connection refused',
  1220: 'connection reset by peer',
};

function percent(n: number, total: number): string {
  return `${(total === 0 ? 0 : (100 * n) / total).toFixed(1)} %`;
}

/**
 * fortio's result block: `Code 418 : 289965 (100.0 %)` per status, `Code -1` for requests that got
 * no response (fortio's socket-error code), then the k6 error codes behind those, then
 * `All done N calls X ms avg, Y qps`.
 */
export function formatFortioSummary(counts: LoadCounts): string {
  const lines: string[] = [];
  const statuses = [...counts.byStatus.entries()].sort(([a], [b]) => a - b);
  for (const [status, n] of statuses) {
    lines.push(`Code ${status === 0 ? '-1' : String(status)} : ${String(n)} (${percent(n, counts.total)})`);
  }
  const networkErrors = [...counts.byErrorCode.entries()].filter(([code]) => code > 0 && code < 1400);
  for (const [code, n] of networkErrors.sort(([a], [b]) => a - b)) {
    const name = K6_ERROR_NAMES[code] ?? 'k6 error';
    lines.push(`  k6 error ${String(code)} (${name}) : ${String(n)} (${percent(n, counts.total)})`);
  }
  const spanS = (counts.lastEndWallMs - counts.firstStartWallMs) / 1000;
  const avgMs = counts.total === 0 ? 0 : counts.durationSumMs / counts.total;
  const qps = spanS > 0 ? counts.total / spanS : 0;
  lines.push(`All done ${String(counts.total)} calls ${avgMs.toFixed(3)} ms avg, ${qps.toFixed(1)} qps`);
  return lines.join('\n');
}
