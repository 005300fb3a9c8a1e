// A run's load as fortio's own JSON result (fortio/fortio fhttp/httprunner.go HTTPRunnerResults,
// which embeds periodic/periodic.go RunnerResults), so `fortio report` can browse it and overlay it
// with fortio's runs. Durations in the histograms are seconds, ActualDuration nanoseconds, as fortio
// writes them; RetCodes uses -1 for requests without a response (fortio's socket-error code).
// What we cannot know from k6 (per-thread socket counts, response sizes) is left out; fortio's
// decoder leaves absent fields at their zero value.
import type { FortioHistogramData } from '../tally/fortio-histogram.ts';

export interface FortioRunInput {
  labels: string;
  startWallMs: number;
  /** 0: as fast as the connections go ("max"). */
  qps: number;
  durationS: number;
  /** First request start to last request end. */
  actualDurationMs: number;
  connections: number;
  url: string;
  byStatus: ReadonlyMap<number, number>;
  durations: FortioHistogramData;
  errors: FortioHistogramData;
  version: string;
}

/** Go's time.Duration.String() for whole milliseconds and up: 1m0s, 3m20s, 12s, 500ms. */
export function goDuration(seconds: number): string {
  if (seconds < 1) return `${String(Math.round(seconds * 1000))}ms`;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.round((seconds % 60) * 1000) / 1000;
  if (h > 0) return `${String(h)}h${String(m)}m${String(s)}s`;
  if (m > 0) return `${String(m)}m${String(s)}s`;
  return `${String(s)}s`;
}

/** fortio's GenID: the start as 2006-01-02-150405, then the labels' letters and digits joined by _. */
export function fortioId(startWallMs: number, labels: string): string {
  const date = new Date(startWallMs).toISOString().replace(/T/, '-').replace(/:/g, '').slice(0, 17);
  const label = labels.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return `${date}${label ? `_${label}` : ''}`.slice(0, 96);
}

export function buildFortioResult(input: FortioRunInput): Record<string, unknown> {
  const count = input.durations.Count;
  return {
    RunType: 'HTTP',
    Labels: input.labels,
    StartTime: new Date(input.startWallMs).toISOString(),
    RequestedQPS: input.qps > 0 ? String(input.qps) : 'max',
    RequestedDuration: goDuration(input.durationS),
    ActualQPS: input.actualDurationMs > 0 ? count / (input.actualDurationMs / 1000) : 0,
    ActualDuration: Math.round(input.actualDurationMs * 1e6),
    NumThreads: input.connections,
    Version: input.version,
    DurationHistogram: input.durations,
    ErrorsDurationHistogram: input.errors,
    Exactly: 0,
    Jitter: false,
    Uniform: false,
    NoCatchUp: false,
    RunID: 0,
    AccessLoggerInfo: '',
    ID: fortioId(input.startWallMs, input.labels),
    RetCodes: Object.fromEntries(
      [...input.byStatus]
        .sort((a, b) => a[0] - b[0])
        .map(([status, n]) => [status === 0 ? '-1' : String(status), n]),
    ),
    URL: input.url,
    AbortOn: 0,
  };
}
