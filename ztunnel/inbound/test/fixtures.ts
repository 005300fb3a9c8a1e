import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import type { Server } from 'node:net';
import { createLogger } from '../../../lib/index.ts';
import type { Logger } from '../../../lib/index.ts';
import type { WorkloadCertificate } from '../../../mesh/pki/index.ts';
import type { LocalWorkload } from '../../../mesh/workload.ts';
import type { ProxyDeps } from '../../proxy/proxy-deps.ts';
import { startPodListeners } from '../pod-listeners.ts';
import type { PodListeners } from '../pod-listeners.ts';
import { createZtunnelMetrics } from '../../telemetry/metrics.ts';
import type { ZtunnelMetrics } from '../../telemetry/metrics.ts';

type After = { after: (fn: () => Promise<void> | void) => void };

/** A workload on fresh loopback addresses: pod 127.<podNet>.0.<n>, app 127.<podNet+1>.0.<n>. */
export function testWorkload(podNet: number, n: number, ports = [8080]): LocalWorkload {
  return {
    uid: `uid-${String(podNet)}-${String(n)}`,
    name: `httpbin-${String(n)}`,
    namespace: 'default',
    serviceAccount: 'httpbin',
    podIp: `127.${String(podNet)}.0.${String(n)}`,
    appIp: `127.${String(podNet + 1)}.0.${String(n)}`,
    ports,
  };
}

/** A TCP echo app on the workload's private address. */
export async function startEchoApp(t: After, host: string, port: number): Promise<Server> {
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.pipe(socket);
  });
  server.listen({ host, port });
  await once(server, 'listening');
  t.after(() => {
    server.close();
  });
  return server;
}

export interface CapturedLog {
  log: Logger;
  lines: string[];
  metrics: ZtunnelMetrics;
}

export function captureLog(): CapturedLog {
  const lines: string[] = [];
  return {
    log: createLogger({ component: 'ztunnel', level: 'debug', write: (l) => lines.push(l) }),
    lines,
    metrics: createZtunnelMetrics(),
  };
}

/** A pod's listeners with a captured log, destroyed when the test ends. */
export async function startTestPod(
  t: After,
  workload: LocalWorkload,
  cert: WorkloadCertificate,
  extra: Partial<Pick<ProxyDeps, 'awaitWorkload'>> = {},
  outbound?: Parameters<typeof startPodListeners>[3],
): Promise<CapturedLog & { pod: PodListeners }> {
  const captured = captureLog();
  const deps = { log: captured.log, metrics: captured.metrics, now: () => performance.now(), ...extra };
  const pod = await startPodListeners(workload, cert, deps, outbound);
  t.after(() => {
    pod.destroy('test over');
  });
  return { ...captured, pod };
}

/** A connection through ztunnel, held open after one echo; `closed` says when and how it ended. */
export async function holdConnection(
  host: string,
  port: number,
): Promise<{ closed: Promise<{ atMs: number; how: string }> }> {
  const socket = connect({ host, port });
  await once(socket, 'connect');
  socket.write('hold');
  await once(socket, 'data');
  const closed = new Promise<{ atMs: number; how: string }>((resolve) => {
    socket.on('error', (err: NodeJS.ErrnoException) => {
      resolve({ atMs: performance.now(), how: err.code ?? err.message });
    });
    socket.on('end', () => {
      resolve({ atMs: performance.now(), how: 'FIN' });
    });
  });
  return { closed };
}
