import type { EnvoyAdmin } from './envoy-admin.ts';

/**
 * pilot-agent's readiness (pilot/cmd/pilot-agent/status/ready/probe.go): Envoy's server state is
 * LIVE and it has applied its first CDS and LDS (update_success or update_rejected above zero).
 * Undefined when ready, else why not.
 */
export async function isEnvoyReady(admin: EnvoyAdmin): Promise<string | undefined> {
  const ready = await admin.get('/ready');
  if (ready.status !== 200) return `Envoy is ${ready.text.trim() || String(ready.status)}`;
  const stats = await admin.stats(
    '^(cluster_manager\\.cds|listener_manager\\.lds)\\.update_(success|rejected)$',
  );
  const applied = (prefix: string): boolean =>
    (stats.get(`${prefix}.update_success`) ?? 0) + (stats.get(`${prefix}.update_rejected`) ?? 0) > 0;
  if (!applied('cluster_manager.cds')) return 'config not received from XDS server (CDS)';
  if (!applied('listener_manager.lds')) return 'config not received from XDS server (LDS)';
  return undefined;
}
