import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { createConnectionTimes, parseAccessLogLine } from '../../mesh/xds/access-log.ts';
import type { ParsedAccessLog } from '../../mesh/xds/access-log.ts';
import { joinTunnelFailures, parseTunnelFailureLine } from './tunnel-join.ts';
import type { TunnelFailure } from './tunnel-join.ts';

/** A failed request's access-log line, with what else Envoy logged about it. */
export interface EnvoyFailure extends ParsedAccessLog {
  /** Its upstream was an HBONE endpoint (`envoy://connect_originate/ip:port`). */
  isHbone?: boolean;
  /** The `[connect_originate]` line of its failed tunnel, when it had one (tunnel-join.ts). */
  tunnel?: TunnelFailure;
}

export interface GatewayAccessLog {
  /** Access-log lines, one per downstream request the gateway finished. */
  requests: number;
  /** The requests the gateway answered itself (503 UF/UC/UH/URX), cut (UPE) or lost to the client (DC). */
  failures: EnvoyFailure[];
  /** HBONE tunnels Envoy could not open, from its connect_originate listener's log. */
  tunnelFailures: TunnelFailure[];
  /** Every line whose start `keep` accepted (the requests around E1's drain deadlines). */
  kept: ParsedAccessLog[];
}

const HBONE_UPSTREAM = '"upstream_host":"envoy://connect_originate/';

/**
 * Every gateway pod's Envoy access log in a run's container-log folder (the local backend writes
 * `<namespace>_<pod>_<container>.log`). Read after the run, line by line (a 200 s run at max rate
 * writes close to a gigabyte: more than one string can hold); nothing here is on the load's path.
 * Only the failures and the lines `keep` accepts are kept. Each upstream connection's idle time and
 * age are derived on the way (its requests are sequential, so they complete, and are logged, in the
 * order they started: mesh/xds/access-log.ts createConnectionTimes); each
 * failure on an HBONE upstream gets its failed tunnel's line from the same pod's log.
 */
export async function readGatewayAccessLog(
  logDir: string,
  options: { keep?: (startWallMs: number) => boolean } = {},
): Promise<GatewayAccessLog> {
  const names = (await readdir(logDir).catch(() => [] as string[])).filter((n) =>
    /^istio-system_istio-ingressgateway-.*\.log$/.test(n),
  );
  const out: GatewayAccessLog = { requests: 0, failures: [], tunnelFailures: [], kept: [] };
  for (const name of names) {
    const failures: EnvoyFailure[] = [];
    const tunnels: TunnelFailure[] = [];
    const deriveTimes = createConnectionTimes();
    const lines = createInterface({ input: createReadStream(join(logDir, name)), crlfDelay: Infinity });
    for await (const line of lines) {
      // A failed tunnel's line first: in JSON (an Istio control plane's gateway) it parses as a request too.
      const tunnel = parseTunnelFailureLine(line);
      if (tunnel) {
        tunnels.push(tunnel);
        continue;
      }
      const parsed = parseAccessLogLine(line);
      if (!parsed) continue;
      out.requests++;
      const entry: EnvoyFailure = line.includes(HBONE_UPSTREAM) ? { ...parsed, isHbone: true } : parsed;
      deriveTimes(entry);
      if (entry.flags.length > 0) failures.push(entry);
      if (options.keep?.(entry.startWallMs)) out.kept.push(entry);
    }
    for (const [failure, tunnel] of joinTunnelFailures(failures, tunnels)) failure.tunnel = tunnel;
    out.failures.push(...failures);
    out.tunnelFailures.push(...tunnels);
  }
  return out;
}
