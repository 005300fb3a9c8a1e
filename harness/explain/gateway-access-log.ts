import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deriveConnectionTimes, parseAccessLogLine } from '../../mesh/xds/access-log.ts';
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

export interface GatewayAccessLog {
  /** Access-log lines, one per downstream request the gateway finished. */
  requests: number;
  /** The requests the gateway answered itself (503 UF/UC/UH/URX), cut (UPE) or lost to the client (DC). */
  failures: ParsedAccessLog[];
  /** HBONE tunnels Envoy could not open, from its connect_originate listener's log. */
  tunnelFailures: TunnelFailure[];
}

const TUNNEL_LINE = /^\[connect_originate\] (\S+) (\S+) "([^"]*)" upstream=\S+ authority=(\S+)$/;

/**
 * Every gateway pod's Envoy access log in a run's container-log folder (the local backend writes
 * `<namespace>_<pod>_<container>.log`). Read after the run: nothing here is on the load's path.
 * Each upstream connection's idle time and age are derived from the log (deriveConnectionTimes).
 */
export async function readGatewayAccessLog(logDir: string): Promise<GatewayAccessLog> {
  const names = (await readdir(logDir).catch(() => [] as string[])).filter((n) =>
    /^istio-system_istio-ingressgateway-.*\.log$/.test(n),
  );
  const out: GatewayAccessLog = { requests: 0, failures: [], tunnelFailures: [] };
  for (const name of names) {
    const entries: ParsedAccessLog[] = [];
    for (const line of (await readFile(join(logDir, name), 'utf8')).split('\n')) {
      const entry = parseAccessLogLine(line);
      if (entry) {
        entries.push(entry);
        continue;
      }
      const m = TUNNEL_LINE.exec(line);
      if (m)
        out.tunnelFailures.push({
          startWallMs: Date.parse(m[1] ?? ''),
          flags: (m[2] ?? '').split(','),
          reason: m[3] ?? '',
          authority: m[4] ?? '',
        });
    }
    deriveConnectionTimes(entries);
    out.requests += entries.length;
    out.failures.push(...entries.filter((e) => e.flags.length > 0));
  }
  return out;
}
