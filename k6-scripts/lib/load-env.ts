// The k6 side of the harness <-> script contract: the harness sets these LOAD_* variables
// (harness/load/load-spec.ts writes them); a bad value stops the script before any request.
export interface LoadEnv {
  targets: string[];
  qps: number;
  connections: number;
  durationS: number;
  timeoutS: number;
  flagHeader: string;
  /** false (LOAD_RECORDS=0) only to measure what the records cost: the harness cannot tally then. */
  records: boolean;
  /** LOAD_NEW_CONNECTIONS=1: a new TCP connection per request (k6 noConnectionReuse). */
  newConnections: boolean;
  /** LOAD_ITERATIONS > 0: exactly this many requests in all (shared-iterations), not a duration. */
  iterations: number;
}

function numberFrom(env: Record<string, string | undefined>, name: string, min: number): number {
  const raw = env[name];
  const value = Number(raw);
  if (raw === undefined || raw === '' || !Number.isFinite(value) || value < min) {
    throw new Error(`Expected ${name} to be a number >= ${String(min)}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

export function parseLoadEnv(env: Record<string, string | undefined>): LoadEnv {
  const targets = (env['LOAD_TARGETS'] ?? '').split(',').filter((t) => t !== '');
  if (targets.length === 0) throw new Error('Expected LOAD_TARGETS to list at least one URL, got none');
  return {
    targets,
    qps: numberFrom(env, 'LOAD_QPS', 0),
    connections: numberFrom(env, 'LOAD_CONNECTIONS', 1),
    durationS: numberFrom(env, 'LOAD_DURATION_S', 0.001),
    timeoutS: numberFrom(env, 'LOAD_TIMEOUT_S', 0.001),
    flagHeader: env['LOAD_FLAG_HEADER'] ?? '',
    records: env['LOAD_RECORDS'] !== '0',
    newConnections: env['LOAD_NEW_CONNECTIONS'] === '1',
    iterations: env['LOAD_ITERATIONS'] === undefined ? 0 : numberFrom(env, 'LOAD_ITERATIONS', 0),
  };
}
