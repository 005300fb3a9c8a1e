import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAccessLogLine } from '../../mesh/gateway/access-log.ts';
import type { ParsedAccessLog } from '../../mesh/gateway/access-log.ts';

export interface GatewayAccessLog {
  /** Access-log lines, one per downstream request the gateway finished. */
  requests: number;
  /** The requests the gateway answered itself (503 UF/UC/UH/URX), cut (UPE) or lost to the client (DC). */
  failures: ParsedAccessLog[];
}

/**
 * Every gateway pod's access log in a run's container-log folder (the local backend writes
 * `<namespace>_<pod>_<container>.log`). Read after the run: nothing here is on the load's path.
 */
export async function readGatewayAccessLog(logDir: string): Promise<GatewayAccessLog> {
  const names = (await readdir(logDir).catch(() => [] as string[])).filter((n) =>
    /^istio-system_istio-ingressgateway-.*\.log$/.test(n),
  );
  const out: GatewayAccessLog = { requests: 0, failures: [] };
  for (const name of names) {
    for (const line of (await readFile(join(logDir, name), 'utf8')).split('\n')) {
      const entry = parseAccessLogLine(line);
      if (!entry) continue;
      out.requests++;
      if (entry.flags.length > 0) out.failures.push(entry);
    }
  }
  return out;
}
