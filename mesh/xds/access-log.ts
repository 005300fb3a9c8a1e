import { extension, struct } from './proto-values.ts';
import type { ProtoObject } from './proto-values.ts';

/**
 * The gateway's and sidecar's access log: Istio's JSON encoding (meshConfig accessLogEncoding: JSON,
 * pilot/pkg/model/telemetry_logging.go EnvoyJSONLogFormatIstio) to /dev/stdout, plus the fields
 * the explain step needs: the attempt count, the downstream and upstream connection ids, and two
 * microsecond durations (COMMON_DURATION): how long the request took inside the gateway before its
 * first byte went upstream, and from then to the response's first byte (the time past the gateway).
 */
export const ISTIO_JSON_LOG_FORMAT = {
  start_time: '%START_TIME%',
  route_name: '%ROUTE_NAME%',
  method: '%REQ(:METHOD)%',
  path: '%REQ(X-ENVOY-ORIGINAL-PATH?:PATH)%',
  protocol: '%PROTOCOL%',
  response_code: '%RESPONSE_CODE%',
  response_flags: '%RESPONSE_FLAGS%',
  response_code_details: '%RESPONSE_CODE_DETAILS%',
  connection_termination_details: '%CONNECTION_TERMINATION_DETAILS%',
  bytes_received: '%BYTES_RECEIVED%',
  bytes_sent: '%BYTES_SENT%',
  duration: '%DURATION%',
  upstream_service_time: '%RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)%',
  x_forwarded_for: '%REQ(X-FORWARDED-FOR)%',
  user_agent: '%REQ(USER-AGENT)%',
  request_id: '%REQ(X-REQUEST-ID)%',
  authority: '%REQ(:AUTHORITY)%',
  upstream_host: '%UPSTREAM_HOST%',
  upstream_cluster: '%UPSTREAM_CLUSTER_RAW%',
  upstream_local_address: '%UPSTREAM_LOCAL_ADDRESS%',
  downstream_local_address: '%DOWNSTREAM_LOCAL_ADDRESS%',
  downstream_remote_address: '%DOWNSTREAM_REMOTE_ADDRESS%',
  requested_server_name: '%REQUESTED_SERVER_NAME%',
  upstream_transport_failure_reason: '%UPSTREAM_TRANSPORT_FAILURE_REASON%',
  attempts: '%UPSTREAM_REQUEST_ATTEMPT_COUNT%',
  connection_id: '%CONNECTION_ID%',
  upstream_connection_id: '%UPSTREAM_CONNECTION_ID%',
  gateway_before_upstream_us: '%COMMON_DURATION(DS_RX_BEG:US_TX_BEG:us)%',
  past_gateway_us: '%COMMON_DURATION(US_TX_BEG:US_RX_BEG:us)%',
} as const;

/** The HCM's access_log entry: a file logger on the container's stdout in the format above. */
export function accessLogConfig(): ProtoObject {
  return extension('envoy.access_loggers.file', 'envoy.extensions.access_loggers.file.v3.FileAccessLog', {
    path: '/dev/stdout',
    log_format: { json_format: struct(ISTIO_JSON_LOG_FORMAT) },
  });
}

/** One access-log line, as the harness reads it. */
export interface ParsedAccessLog {
  startWallMs: number;
  status: number;
  /** %RESPONSE_FLAGS%, split (none: []). */
  flags: string[];
  /** %RESPONSE_CODE_DETAILS%, e.g. upstream_reset_before_response_started{connection_termination}. */
  details: string;
  durationMs: number;
  /** The upstream host as `ip:port` (an HBONE host `envoy://connect_originate/ip:port` unwrapped); '' when none. */
  upstream: string;
  attempts: number;
  /** Envoy's id of the upstream connection the last attempt used (HBONE: its tunnel). */
  connectionId?: number;
  /** Derived when the whole log is read: how long that connection sat idle before this request. */
  connectionIdleMs?: number;
  /** Derived likewise: time since the connection's first logged request started (a lower bound of its age). */
  connectionAgeMs?: number;
  /** %UPSTREAM_TRANSPORT_FAILURE_REASON%. */
  upstreamFailure?: string;
  /** From the request's first byte upstream to the response's first byte, µs (none when no response came). */
  pastGatewayUs?: number;
  /** From the request's first byte at the gateway to its first byte upstream, µs. */
  beforeUpstreamUs?: number;
}

const HBONE_HOST = /^envoy:\/\/connect_originate\//;

/** The fields of one access-log line (undefined for any other line: Envoy's and pilot-agent's own logs). */
export function parseAccessLogLine(line: string): ParsedAccessLog | undefined {
  if (!line.startsWith('{') || !line.includes('"response_code"')) return undefined;
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const text = (k: string): string => {
    const v = o[k];
    return typeof v === 'string' ? v : '';
  };
  const num = (k: string): number | undefined => {
    const v = Number(o[k]);
    return o[k] === null || o[k] === undefined || o[k] === '' || !Number.isFinite(v) ? undefined : v;
  };
  const startWallMs = Date.parse(text('start_time'));
  if (!Number.isFinite(startWallMs)) return undefined;
  const flags = text('response_flags');
  const connectionId = num('upstream_connection_id');
  const failure = text('upstream_transport_failure_reason');
  const pastGatewayUs = num('past_gateway_us');
  const beforeUpstreamUs = num('gateway_before_upstream_us');
  return {
    startWallMs,
    status: num('response_code') ?? 0,
    flags: flags === '' || flags === '-' ? [] : flags.split(','),
    details: text('response_code_details'),
    durationMs: num('duration') ?? 0,
    upstream: text('upstream_host').replace(HBONE_HOST, ''),
    attempts: num('attempts') ?? 0,
    ...(connectionId === undefined ? {} : { connectionId }),
    ...(failure === '' ? {} : { upstreamFailure: failure }),
    ...(pastGatewayUs === undefined ? {} : { pastGatewayUs }),
    ...(beforeUpstreamUs === undefined ? {} : { beforeUpstreamUs }),
  };
}

/**
 * Envoy logs no connection's idle time (the Node gateway did): derived from the log itself. Each
 * request on an upstream connection follows the one before it on that connection, so its idle
 * time is its start minus the previous request's end (start + duration); the age is its start
 * minus the connection's first logged request. The returned function takes the entries of one
 * Envoy's log in each connection's order (start order; a connection's requests are sequential, so
 * the log's completion order is that too) and sets both on each.
 */
export function createConnectionTimes(): (entry: ParsedAccessLog) => void {
  const connections = new Map<number, { firstStartMs: number; lastEndMs: number }>();
  return (e) => {
    if (e.connectionId === undefined) return;
    const seen = connections.get(e.connectionId);
    const endMs = e.startWallMs + e.durationMs;
    if (!seen) {
      e.connectionAgeMs = 0;
      connections.set(e.connectionId, { firstStartMs: e.startWallMs, lastEndMs: endMs });
      return;
    }
    e.connectionAgeMs = e.startWallMs - seen.firstStartMs;
    e.connectionIdleMs = Math.max(0, e.startWallMs - seen.lastEndMs);
    seen.lastEndMs = Math.max(seen.lastEndMs, endMs);
  };
}

/** createConnectionTimes over entries in any order (sorted by start first); the array's order is kept. */
export function deriveConnectionTimes(entries: readonly ParsedAccessLog[]): void {
  const derive = createConnectionTimes();
  for (const e of [...entries].sort((a, b) => a.startWallMs - b.startWallMs)) derive(e);
}
