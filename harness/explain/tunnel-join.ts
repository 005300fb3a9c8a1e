import type { ParsedAccessLog } from '../../mesh/xds/access-log.ts';

/** A `[connect_originate]` line: Envoy's HBONE origination failed (istiod logs only UF there). */
export interface TunnelFailure {
  startWallMs: number;
  flags: string[];
  /** %UPSTREAM_TRANSPORT_FAILURE_REASON%, e.g. `tunnel_response:503` (ztunnel refused the CONNECT). */
  reason: string;
  /** The CONNECT's authority: the endpoint `ip:port`. */
  authority: string;
}

const TUNNEL_LINE = /^\[connect_originate\] (\S+) (\S+) "([^"]*)" upstream=\S+ authority=(\S+)$/;

/**
 * The same failure in the mesh's JSON access-log format: istiod applies meshConfig's
 * accessLogEncoding JSON and accessLogFormat to the connect_originate listener too, so an Istio
 * control plane's gateway logs a failed tunnel as a JSON line of its own (upstream_cluster
 * connect_originate, the CONNECT's authority as downstream_local_address, no request fields).
 */
function parseTunnelFailureJson(line: string): TunnelFailure | undefined {
  if (!line.includes('"upstream_cluster":"connect_originate"')) return undefined;
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const text = (k: string): string => (typeof o[k] === 'string' ? o[k] : '');
  const startWallMs = Date.parse(text('start_time'));
  const flags = text('response_flags');
  if (
    o['upstream_cluster'] !== 'connect_originate' ||
    !Number.isFinite(startWallMs) ||
    !flags ||
    flags === '-'
  )
    return undefined;
  return {
    startWallMs,
    flags: flags.split(','),
    reason: text('upstream_transport_failure_reason'),
    authority: text('downstream_local_address'),
  };
}

/**
 * The fields of a `[connect_originate]` line (mesh/xds/istio-clusters.ts connectOriginateListener),
 * or of its JSON form (an Istio control plane's gateway); undefined for any other.
 */
export function parseTunnelFailureLine(line: string): TunnelFailure | undefined {
  if (line.startsWith('{')) return parseTunnelFailureJson(line);
  const m = TUNNEL_LINE.exec(line);
  const startWallMs = Date.parse(m?.[1] ?? '');
  if (!m || !Number.isFinite(startWallMs)) return undefined;
  return { startWallMs, flags: (m[2] ?? '').split(','), reason: m[3] ?? '', authority: m[4] ?? '' };
}

/**
 * Both lines start within a few ms of each other: the router's access-log line at the downstream
 * request's start, the tunnel's when the internal connection reached connect_originate, which comes
 * later by the routing (and by the back-off when the failed attempt was a retry).
 */
export const TUNNEL_SLACK_MS = 5;

/**
 * The tunnel failure behind each failed request on an HBONE upstream: the router logs an HBONE
 * request whose CONNECT was refused as 503 UC `connection_termination` (the internal connection to
 * connect_originate closed), and only the tunnel's own line says why. A tunnel line belongs to the
 * failure with its authority (the failure's upstream `ip:port`) whose lifetime holds its start, the
 * nearest in time; each line is used once. Tunnel lines left over are attempts Envoy retried on
 * another endpoint, or failures outside `failures`.
 */
export function joinTunnelFailures<T extends ParsedAccessLog>(
  failures: readonly T[],
  tunnels: readonly TunnelFailure[],
): Map<T, TunnelFailure> {
  const joined = new Map<T, TunnelFailure>();
  const open = [...tunnels].sort((a, b) => a.startWallMs - b.startWallMs);
  const used = new Set<TunnelFailure>();
  for (const failure of [...failures].sort((a, b) => a.startWallMs - b.startWallMs)) {
    if (failure.upstream === '' || (!failure.flags.includes('UC') && !failure.flags.includes('UF'))) continue;
    const from = failure.startWallMs - TUNNEL_SLACK_MS;
    const to = failure.startWallMs + failure.durationMs + TUNNEL_SLACK_MS;
    let best: TunnelFailure | undefined;
    for (const t of open) {
      if (t.startWallMs > to) break;
      if (t.startWallMs < from || used.has(t) || t.authority !== failure.upstream) continue;
      const distance = (x: TunnelFailure): number => Math.abs(x.startWallMs - failure.startWallMs);
      if (!best || distance(t) < distance(best)) best = t;
    }
    if (!best) continue;
    used.add(best);
    joined.set(failure, best);
  }
  return joined;
}
