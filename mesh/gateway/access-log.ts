/**
 * One access-log line per downstream request, in the spirit of Istio's default Envoy format:
 * [start] "METHOD PATH HTTP/1.1" STATUS FLAGS ... DURATION "UPSTREAM_HOST", plus the attempt count
 * and the id and age of the upstream connection the answer came from (to see rotation).
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
}

export function formatAccessLog(e: AccessLogEntry): string {
  const conn =
    e.connectionId === undefined
      ? '-'
      : `${String(e.connectionId)}/${String(Math.round(e.connectionAgeMs ?? 0))}ms`;
  return `[${new Date(e.startWallMs).toISOString()}] "${e.method} ${e.path} HTTP/1.1" ${String(e.status)} ${e.flags.join(',') || '-'} ${String(Math.round(e.durationMs))} "${e.upstream || '-'}" attempts=${String(e.attempts)} upstream_conn=${conn}`;
}

export function parseAccessLogLine(
  line: string,
):
  { status: number; flags: string[]; upstream: string; attempts: number; connectionId?: number } | undefined {
  const m =
    /^\[[^\]]+\] "[A-Z]+ \S+ HTTP\/1\.1" (\d{3}) (\S+) \d+ "([^"]*)" attempts=(\d+) upstream_conn=(\S+)$/.exec(
      line,
    );
  if (!m) return undefined;
  const conn = m[5] === '-' ? undefined : Number(m[5]?.split('/')[0]);
  return {
    status: Number(m[1]),
    flags: m[2] === '-' ? [] : (m[2] ?? '').split(','),
    upstream: m[3] === '-' ? '' : (m[3] ?? ''),
    attempts: Number(m[4]),
    ...(conn === undefined ? {} : { connectionId: conn }),
  };
}
