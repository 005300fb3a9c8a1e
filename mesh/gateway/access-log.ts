/**
 * One access-log line per downstream request, in the spirit of Istio's default Envoy format:
 * [start] "METHOD PATH HTTP/1.1" STATUS FLAGS ... DURATION "UPSTREAM_HOST", plus the attempt count
 * and the upstream connection the answer came from: `upstream_conn=<id>/<age>ms/<idle>ms`, its id,
 * its age (to see rotation) and how long it had sat idle in the pool before this request (to see
 * the keep-alive race: a request put on a connection as the server closes it for idleness).
 */
export interface AccessLogEntry {
  startWallMs: number;
  method: string;
  path: string;
  status: number;
  flags: string[];
  durationMs: number;
  upstream: string;
  attempts: number;
  connectionId?: number;
  connectionAgeMs?: number;
  connectionIdleMs?: number;
  /** Envoy's %UPSTREAM_TRANSPORT_FAILURE_REASON%: why the last attempt failed (errno or message). */
  upstreamFailure?: string;
}

export function formatAccessLog(e: AccessLogEntry): string {
  const conn =
    e.connectionId === undefined
      ? '-'
      : `${String(e.connectionId)}/${String(Math.round(e.connectionAgeMs ?? 0))}ms/${String(Math.round(e.connectionIdleMs ?? 0))}ms`;
  return `[${new Date(e.startWallMs).toISOString()}] "${e.method} ${e.path} HTTP/1.1" ${String(e.status)} ${e.flags.join(',') || '-'} ${String(Math.round(e.durationMs))} "${e.upstream || '-'}" attempts=${String(e.attempts)} upstream_conn=${conn}${e.upstreamFailure ? ` upstream_failure=${JSON.stringify(e.upstreamFailure)}` : ''}`;
}

/** What a line gives back: everything but the request's method and path. */
export type ParsedAccessLog = Omit<AccessLogEntry, 'method' | 'path'>;

const ACCESS_LOG_LINE =
  /^\[([^\]]+)\] "[A-Z]+ \S+ HTTP\/1\.1" (\d{1,3}) (\S+) (\d+) "([^"]*)" attempts=(\d+) upstream_conn=(\S+)(?: upstream_failure=(".*"))?$/;

/** The fields of one access-log line (undefined for any other line: the gateway's own log lines). */
export function parseAccessLogLine(line: string): ParsedAccessLog | undefined {
  const m = ACCESS_LOG_LINE.exec(line);
  if (!m) return undefined;
  const [id, age, idle] = m[7] === '-' ? [] : (m[7] ?? '').split('/');
  let upstreamFailure: string | undefined;
  try {
    upstreamFailure = m[8] === undefined ? undefined : (JSON.parse(m[8]) as string);
  } catch {
    upstreamFailure = m[8]; // not JSON after all: kept as written
  }
  return {
    startWallMs: Date.parse(m[1] ?? ''),
    status: Number(m[2]),
    flags: m[3] === '-' ? [] : (m[3] ?? '').split(','),
    durationMs: Number(m[4]),
    upstream: m[5] === '-' ? '' : (m[5] ?? ''),
    attempts: Number(m[6]),
    ...(id === undefined
      ? {}
      : {
          connectionId: Number(id),
          connectionAgeMs: Number(age?.replace(/ms$/, '')),
          ...(idle === undefined ? {} : { connectionIdleMs: Number(idle.replace(/ms$/, '')) }),
        }),
    ...(upstreamFailure === undefined ? {} : { upstreamFailure }),
  };
}
