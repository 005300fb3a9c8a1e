// Our TypeScript ztunnel as a drain target: one instance in this process serving one pod on loopback
// (the local backend's address model), its app our httpbin, SIGTERM being its drain().
import { startFaultServer } from '../../../apps/fault-server/fault-server.ts';
import { createLogger, createSystemClock } from '../../../lib/index.ts';
import { createCertificateAuthority } from '../../../mesh/pki/index.ts';
import type { LocalWorkload } from '../../../mesh/workload.ts';
import { createZtunnelMetrics } from '../../../ztunnel/telemetry/metrics.ts';
import { createZtunnel } from '../../../ztunnel/ztunnel.ts';
import type { DrainTarget } from './drain-probe.ts';

export const GATEWAY_IDENTITY = { namespace: 'istio-system', serviceAccount: 'istio-ingressgateway' };
export const POD_SPIFFE = 'spiffe://cluster.local/ns/default/sa/httpbin';

/**
 * `podNet` picks the loopback block: pod 127.<podNet>.0.1, app 127.<podNet + 1>.0.1; keep it below
 * 150, where local clusters pick theirs (address-pool.ts `pickAddressBlock`).
 */
export async function startModelTarget(options: {
  podNet: number;
  deadlineMs: number;
}): Promise<DrainTarget & { close(): Promise<void> }> {
  const ca = await createCertificateAuthority();
  const clock = createSystemClock();
  const lines: string[] = [];
  const log = createLogger({
    component: 'ztunnel',
    level: 'info',
    format: 'istio',
    write: (l) => lines.push(l),
  });
  const workload: LocalWorkload = {
    uid: 'conformance-httpbin',
    name: 'httpbin-conformance',
    namespace: 'default',
    serviceAccount: 'httpbin',
    podIp: `127.${String(options.podNet)}.0.1`,
    appIp: `127.${String(options.podNet + 1)}.0.1`,
    ports: [8080],
  };
  const app = await startFaultServer({ host: workload.appIp, port: 8080, hostname: workload.name, clock });
  const zt = createZtunnel({
    issueCert: (id) => ca.issue(id),
    log,
    metrics: createZtunnelMetrics(),
    clock,
    drainDeadlineMs: options.deadlineMs,
  });
  await zt.addWorkload(workload);
  zt.markSnapshotSent();
  let drained: Promise<unknown> = Promise.resolve();
  return {
    hboneHost: workload.podIp,
    hbonePort: 15008,
    appAuthority: `${workload.podIp}:8080`,
    podIdentity: POD_SPIFFE,
    clientCert: await ca.issue(GATEWAY_IDENTITY),
    terminate: () => {
      drained = zt.drain();
    },
    logLines: () => lines,
    deadlineMs: options.deadlineMs,
    settled: async () => {
      await drained;
    },
    close: async () => {
      await drained;
      zt.delWorkload(workload.uid);
      await app.destroy();
    },
  };
}
