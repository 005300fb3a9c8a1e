// What `npm run kind-smoke` checks after its requests: that they went the mesh's way, read from the
// components' own logs. The gateway's Envoy logged each one (Istio's JSON access log) with a 200 and
// an HBONE upstream (`envoy://connect_originate/<pod>:<port>`, istiod's connect_originate cluster),
// and a ztunnel logged inbound connections to httpbin with the gateway's peer identity
// (`connection complete ... direction=inbound`, istio/ztunnel's access-log line).

/** The query marker each smoke request carries, so its lines are told from the readiness probes'. */
export const SMOKE_MARKER = 'kind-smoke=';

/**
 * `count` GETs of /status/200 carrying the marker, one after another through `ingress`; each one's
 * status (0: no answer within 5 s).
 */
export async function sendMarked(ingress: string, count: number, signal?: AbortSignal): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count && !signal?.aborted; i++) {
    try {
      const timeout = AbortSignal.timeout(5000);
      const response = await fetch(`http://${ingress}/status/200?${SMOKE_MARKER}${String(i)}`, {
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      await response.arrayBuffer();
      statuses.push(response.status);
    } catch {
      statuses.push(0);
    }
  }
  return statuses;
}

export interface MeshPathEvidence {
  /** Gateway access-log lines for the marked requests. */
  gatewayRequests: number;
  /** Of those, answered 200 through an HBONE upstream. */
  gatewayOkViaHbone: number;
  /** ztunnel `connection complete` lines: inbound, to an httpbin identity, from an mTLS peer, no error. */
  ztunnelInbound: number;
}

export function meshPathEvidence(logs: {
  gateway: readonly string[];
  ztunnels: readonly string[];
}): MeshPathEvidence {
  let gatewayRequests = 0;
  let gatewayOkViaHbone = 0;
  for (const line of logs.gateway) {
    if (!line.startsWith('{') || !line.includes(SMOKE_MARKER)) continue;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (typeof entry['path'] !== 'string' || !entry['path'].includes(SMOKE_MARKER)) continue;
    gatewayRequests++;
    const upstream = typeof entry['upstream_host'] === 'string' ? entry['upstream_host'] : '';
    if (Number(entry['response_code']) === 200 && upstream.startsWith('envoy://connect_originate/'))
      gatewayOkViaHbone++;
  }
  const ztunnelInbound = logs.ztunnels.filter(
    (line) =>
      line.includes('connection complete') &&
      /\bdirection="?inbound\b/.test(line) &&
      !/\berror=/.test(line) &&
      /\bdst\.identity="?spiffe:\/\/[^\s"]*\/sa\/httpbin\b/.test(line) &&
      /\bsrc\.identity="?spiffe:\/\//.test(line),
  ).length;
  return { gatewayRequests, gatewayOkViaHbone, ztunnelInbound };
}

/** Why the evidence does not show `sent` requests crossing the mesh; empty when it does. */
export function meshPathProblems(evidence: MeshPathEvidence, sent: number): string[] {
  const problems: string[] = [];
  if (evidence.gatewayRequests !== sent)
    problems.push(
      `the gateway's access log has ${String(evidence.gatewayRequests)} of the ${String(sent)} requests`,
    );
  if (evidence.gatewayOkViaHbone !== evidence.gatewayRequests)
    problems.push(
      `${String(evidence.gatewayRequests - evidence.gatewayOkViaHbone)} requests were not answered 200 through an HBONE upstream (connect_originate)`,
    );
  if (evidence.ztunnelInbound === 0)
    problems.push(
      'no ztunnel logged an inbound mTLS connection to httpbin (connection complete, direction=inbound)',
    );
  return problems;
}
