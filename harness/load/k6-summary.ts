import { readFile } from 'node:fs/promises';
import { ErrorCode, HarnessError } from '../../lib/index.ts';

/** The parts of k6's `--summary-export` the harness reconciles against and reports. */
export interface K6Summary {
  httpReqs: number;
  iterations: number;
  /** constant-arrival-rate iterations k6 could not start for want of a free VU: generator health. */
  droppedIterations: number;
  vusMax: number;
  durationMs: { avg: number; med: number; p90: number; p99: number; max: number };
}

type MetricValues = Record<string, number | undefined>;

export async function readK6Summary(path: string): Promise<K6Summary> {
  let metrics: Record<string, MetricValues | undefined>;
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as { metrics?: Record<string, MetricValues> };
    metrics = parsed.metrics ?? {};
  } catch (err) {
    throw new HarnessError(ErrorCode.LoadFailed, `could not read k6's summary ${path}`, { cause: err });
  }
  const duration = metrics['http_req_duration'] ?? {};
  return {
    httpReqs: metrics['http_reqs']?.['count'] ?? 0,
    iterations: metrics['iterations']?.['count'] ?? 0,
    droppedIterations: metrics['dropped_iterations']?.['count'] ?? 0,
    vusMax: metrics['vus_max']?.['value'] ?? metrics['vus_max']?.['max'] ?? 0,
    durationMs: {
      avg: duration['avg'] ?? 0,
      med: duration['med'] ?? 0,
      p90: duration['p(90)'] ?? 0,
      p99: duration['p(99)'] ?? 0,
      max: duration['max'] ?? 0,
    },
  };
}
