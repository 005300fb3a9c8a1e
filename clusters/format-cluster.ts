import type { ClusterAddresses } from './backend.ts';
import type { LifecycleEvent } from './events.ts';

const pad = (s: string, n: number): string => s.padEnd(n);

/** The addresses of a running local cluster, for a person poking at it. */
export function formatClusterAddresses(a: ClusterAddresses): string {
  const lines = [
    'nodes:',
    ...a.nodes.map((n) => `  ${pad(n.name, 10)} ${n.ip}`),
    ...(a.ingress
      ? [`ingress gateway: http://${a.ingress}/  (e.g. curl http://${a.ingress}/status/418)`]
      : []),
    `control plane: xds ${a.controlPlane.xds}, CA ${a.controlPlane.ca}, Envoy's mTLS xDS ${a.controlPlane.envoyXds}`,
    'services:',
    ...a.services.map(
      (s) =>
        `  ${pad(`${s.namespace}/${s.name}`, 24)} ${s.vip} ports ${s.ports.map((p) => `${String(p.port)}->${String(p.targetPort)}`).join(',')}`,
    ),
    'pods:',
    `  ${pad('NAME', 40)} ${pad('NODE', 8)} ${pad('POD IP', 16)} ${pad('APP IP', 16)} READY`,
    ...a.pods.map(
      (p) =>
        `  ${pad(`${p.namespace}/${p.name}`, 40)} ${pad(p.node, 8)} ${pad(p.podIp, 16)} ${pad(p.appIp, 16)} ${p.isReady ? 'yes' : 'no'}`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

/** One lifecycle event as a log line, time in seconds on the run clock. */
export function formatEvent(e: LifecycleEvent): string {
  const where = e.node ? ` (${e.node})` : '';
  const detail = e.detail ? `  ${e.detail}` : '';
  return `${(e.atMs / 1000).toFixed(3).padStart(9)}s  ${pad(e.kind, 26)} ${e.object}${where}${detail}\n`;
}
