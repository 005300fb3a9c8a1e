import type { EnvoyFailure } from './gateway-access-log.ts';

/**
 * What Envoy's own evidence says about a failed request, in words: its %RESPONSE_CODE_DETAILS% and,
 * on an HBONE upstream, its failed tunnel's %UPSTREAM_TRANSPORT_FAILURE_REASON% (tunnel-join.ts).
 * The router writes `upstream_reset_before_response_started{<reset reason>|<transport failure>}`
 * (envoy source/common/router/router.cc onUpstreamReset; the reasons are
 * source/common/http/utility.cc resetReasonToString; spaces become `_` in the log).
 */
export interface FailureMeaning {
  /** `CONNECT refused by ztunnel`. */
  meaning: string;
  /** The token it rests on: `tunnel_response:503`, `connection_termination`, `no_healthy_upstream`. */
  evidence: string;
}

/** Reset reasons inside `upstream_reset_before_response_started{...}`, hbone or not. */
const RESET_MEANINGS: Record<string, [hbone: string, plain: string]> = {
  connection_termination: [
    'HBONE connection closed with the request in flight',
    'upstream connection closed with the request in flight',
  ],
  remote_connection_failure: ["connection to ztunnel's HBONE port failed", 'upstream connect failed'],
  local_connection_failure: ["connection to ztunnel's HBONE port failed", 'upstream connect failed'],
  connection_failure: ["connection to ztunnel's HBONE port failed", 'upstream connect failed'],
  connection_timeout: ['HBONE connect timed out', 'upstream connect timed out'],
  remote_reset: ['upstream reset the request', 'upstream reset the request'],
  remote_refused_stream_reset: ['upstream refused the stream', 'upstream refused the stream'],
  local_reset: ['the gateway reset the upstream request', 'the gateway reset the upstream request'],
  overflow: ['circuit breaker overflow', 'circuit breaker overflow'],
  protocol_error: ['upstream protocol error', 'upstream protocol error'],
};

/** Details that are not an upstream reset (envoy StreamInfo::ResponseCodeDetails). */
const DETAIL_MEANINGS: Record<string, string> = {
  no_healthy_upstream: 'no healthy upstream',
  downstream_remote_disconnect: 'the client went away before its answer',
  upstream_per_try_timeout: 'upstream per-try timeout',
  upstream_response_timeout: 'upstream response timeout',
  via_upstream: "the upstream's own answer",
};

/** The tunnel's failure reason (the `[connect_originate]` line's quoted field). */
function tunnelMeaning(reason: string): string {
  if (/^tunnel_response:\d+/.test(reason)) return 'CONNECT refused by ztunnel';
  if (/connection_refused/i.test(reason)) return "ztunnel's HBONE port refused the connection";
  if (/timeout/i.test(reason)) return 'HBONE connect timed out';
  return 'HBONE tunnel not opened';
}

const RESET = /^upstream_reset_(before|after)_response_started\{([^|}]*)(?:\|([^}]*))?\}$/;

export function describeFailure(f: EnvoyFailure): FailureMeaning {
  if (f.tunnel) return { meaning: tunnelMeaning(f.tunnel.reason), evidence: f.tunnel.reason };
  const reset = RESET.exec(f.details);
  if (reset) {
    const [, when, reason = '', transport] = reset;
    const [hbone, plain] = RESET_MEANINGS[reason] ?? [
      `upstream reset (${reason})`,
      `upstream reset (${reason})`,
    ];
    const meaning = when === 'after' ? 'upstream reset mid-response' : f.isHbone ? hbone : plain;
    if (transport && /connection_refused/i.test(transport))
      return {
        meaning: f.isHbone
          ? "ztunnel's HBONE port refused the connection"
          : 'upstream refused the connection',
        evidence: transport,
      };
    return { meaning, evidence: transport ?? reason };
  }
  if (f.details === '') return { meaning: 'no details logged', evidence: '' };
  return { meaning: DETAIL_MEANINGS[f.details] ?? f.details, evidence: f.details };
}

/** Failures that share status, flags, details and tunnel reason. */
export interface FailureKind extends FailureMeaning {
  count: number;
  status: number;
  /** %RESPONSE_FLAGS% as logged (`UC`, `UF,URX`). */
  flags: string;
  details: string;
  /** The failed tunnel's reason ('' when none was joined). */
  tunnelReason: string;
}

/** The failures by kind, most first (ties in first-seen order). */
export function groupFailureKinds(failures: readonly EnvoyFailure[]): FailureKind[] {
  const kinds = new Map<string, FailureKind>();
  for (const f of failures) {
    const flags = f.flags.join(',');
    const tunnelReason = f.tunnel?.reason ?? '';
    const key = [f.status, flags, f.details, tunnelReason, f.isHbone === true].join('\u0000');
    const kind = kinds.get(key) ?? {
      count: 0,
      status: f.status,
      flags,
      details: f.details,
      tunnelReason,
      ...describeFailure(f),
    };
    kind.count++;
    kinds.set(key, kind);
  }
  return [...kinds.values()].sort((a, b) => b.count - a.count);
}

/** `10 CONNECT refused by ztunnel (tunnel_response:503; 503 UC), 2 HBONE connection closed ...`. */
export function formatFailureKinds(kinds: readonly FailureKind[]): string {
  return kinds
    .map((k) => {
      const answer = `${String(k.status)} ${k.flags}`;
      return `${String(k.count)} ${k.meaning} (${k.evidence ? `${k.evidence}; ` : ''}${answer})`;
    })
    .join(', ');
}

/** gateway-failures.csv: one row per kind. */
export function failureKindRows(kinds: readonly FailureKind[]): Record<string, string | number>[] {
  return kinds.map((k) => ({
    failures: k.count,
    status: k.status,
    flags: k.flags,
    meaning: k.meaning,
    details: k.details,
    tunnel_reason: k.tunnelReason,
  }));
}
