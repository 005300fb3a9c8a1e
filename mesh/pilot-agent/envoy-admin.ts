import { request } from 'node:http';

/** Envoy's admin API on its unix socket (pilot-agent talks to it on localhost:15000 in Istio). */
export interface EnvoyAdmin {
  get(path: string): Promise<{ status: number; text: string }>;
  post(path: string): Promise<{ status: number; text: string }>;
  /** Envoy's counters and gauges matching an RE2 filter, `usedonly` (name -> value). */
  stats(filter: string): Promise<Map<string, number>>;
}

export function envoyAdmin(socketPath: string, timeoutMs = 2000): EnvoyAdmin {
  const call = (method: string, path: string): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const req = request({ socketPath, method, path, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      });
      req.on('timeout', () =>
        req.destroy(new Error(`Envoy admin ${path}: no answer in ${String(timeoutMs)} ms`)),
      );
      req.on('error', reject);
      req.end();
    });
  return {
    get: (path) => call('GET', path),
    post: (path) => call('POST', path),
    async stats(filter) {
      const { text } = await call('GET', `/stats?usedonly&filter=${encodeURIComponent(filter)}`);
      const out = new Map<string, number>();
      for (const line of text.split('\n')) {
        const m = /^(\S+): (\d+)$/.exec(line);
        if (m?.[1] && m[2]) out.set(m[1], Number(m[2]));
      }
      return out;
    },
  };
}

/** Envoy's internal listeners (envoy.bootstrap.internal_listener) name their stats so. */
const INTERNAL_LISTENER_PREFIX = 'listener.envoy_internal_';

/**
 * pilot-agent's count for EXIT_ON_ZERO_ACTIVE_CONNECTIONS (istio pkg/envoy/agent.go
 * activeProxyConnections): downstream_cx_active summed over the listeners, leaving out per-worker
 * lines, the status and Prometheus listeners and admin, and Envoy's internal listeners: an ambient
 * gateway's HBONE connect_originate holds one connection per pooled upstream connection, so with
 * them the count stays above zero while the pool holds any (istio/istio#60728; skipped since #60731,
 * 14f9ffc3f79, in 1.29.6 and 1.30.3). -1 when the stat is missing. `seen` gets each line's value
 * with whether it was counted (pilot-agent's log says which listener holds the drain).
 */
export async function activeProxyConnections(
  admin: EnvoyAdmin,
  skipPorts: number[],
  seen?: (listener: string, value: number, counted: boolean) => void,
): Promise<number> {
  const stats = await admin.stats('downstream_cx_active$');
  // Istio's listeners are 0.0.0.0_<port>; here they bind the pod address: skipped by port.
  const skippedPort = (name: string): boolean =>
    skipPorts.some((p) => name.endsWith(`_${String(p)}.downstream_cx_active`));
  const skipped = new Set([
    'listener.admin.downstream_cx_active',
    'listener.admin.main_thread.downstream_cx_active',
  ]);
  let sum = 0;
  let any = false;
  for (const [name, value] of stats) {
    if (!name.startsWith('listener.') || name.includes('worker_') || skipped.has(name) || skippedPort(name))
      continue;
    any = true;
    const internal = name.startsWith(INTERNAL_LISTENER_PREFIX);
    if (value > 0)
      seen?.(name.replace(/^listener\./, '').replace(/\.downstream_cx_active$/, ''), value, !internal);
    if (!internal) sum += value;
  }
  return any ? sum : -1;
}
