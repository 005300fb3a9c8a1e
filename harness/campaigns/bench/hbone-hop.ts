// One HBONE hop (client -> ztunnel process -> echo app) next to the same load sent directly.
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { execa } from 'execa';
import { openHboneSession, openTunnel } from '../../../mesh/hbone/index.ts';
import { startNodeAgentServer } from '../../../mesh/node-agent/index.ts';
import { startStandaloneCa } from '../../../mesh/pki/index.ts';
import type { WorkloadCertificate } from '../../../mesh/pki/index.ts';
import { CLOCK_TICKS_PER_S, readProcEntry } from '../../observe/proc-stat.ts';
import type { LocalWorkload } from '../../../mesh/workload.ts';
import { PROJECT_ROOT } from '../../paths.ts';
import type { EchoLoadResult } from './echo-load.ts';
import { runEchoLoad } from './echo-load.ts';

const POD: LocalWorkload = {
  uid: 'bench-echo',
  name: 'echo',
  namespace: 'default',
  serviceAccount: 'echo',
  podIp: '127.61.0.1',
  appIp: '127.62.0.1',
  ports: [8080],
};

/** The echo load over `connections` TCP connections straight to `host`:8080. */
export async function directLoad(
  host: string,
  connections: number,
  durationMs: number,
): Promise<EchoLoadResult> {
  const sockets = await Promise.all(
    Array.from({ length: connections }, async () => {
      const s: Socket = connect({ host, port: 8080, noDelay: true });
      await once(s, 'connect');
      return s;
    }),
  );
  const result = await runEchoLoad({ connections: sockets, durationMs });
  for (const s of sockets) s.destroy();
  return result;
}

/**
 * The echo load over `connections` HBONE tunnels to `host`:8080 through the ztunnel serving it at
 * `host`:15008 (100 streams a session, the pool's limit).
 */
export async function hboneLoad(options: {
  host: string;
  cert: WorkloadCertificate;
  expectedIdentity?: string;
  connections: number;
  durationMs: number;
}): Promise<EchoLoadResult> {
  const { host, connections } = options;
  const sessions = await Promise.all(
    Array.from({ length: Math.ceil(connections / 100) }, () =>
      openHboneSession({
        host,
        cert: options.cert,
        ...(options.expectedIdentity ? { expectedIdentity: options.expectedIdentity } : {}),
      }),
    ),
  );
  const tunnels: Duplex[] = await Promise.all(
    Array.from({ length: connections }, async (_, i) => {
      const session = sessions[Math.floor(i / 100)];
      if (!session) throw new Error('no session');
      const tunnel = await openTunnel(session, `${host}:8080`);
      if (tunnel.status !== 200) throw new Error(`CONNECT answered ${String(tunnel.status)}`);
      return tunnel.stream;
    }),
  );
  const result = await runEchoLoad({ connections: tunnels, durationMs: options.durationMs });
  for (const s of sessions) s.destroy();
  return result;
}

/** `load`'s result with the CPU that process `pid` spent meanwhile, per round trip (µs). */
export async function withCpu(
  pid: number | undefined,
  load: () => Promise<EchoLoadResult>,
): Promise<EchoLoadResult & { cpuUsPerRoundTrip: number }> {
  const ticks = (): number => (pid === undefined ? NaN : (readProcEntry(pid)?.ticks ?? NaN));
  const before = ticks();
  const result = await load();
  const cpuMs = ((ticks() - before) * 1000) / CLOCK_TICKS_PER_S;
  return { ...result, cpuUsPerRoundTrip: (cpuMs * 1000) / Math.max(1, result.roundTrips) };
}

export async function benchHboneHop(options: { connections: number; durationMs: number }): Promise<{
  direct: EchoLoadResult;
  hbone: EchoLoadResult & { cpuUsPerRoundTrip: number };
}> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-hbone-'));
  const app = createServer((s) => {
    s.on('error', () => undefined);
    s.pipe(s);
  });
  app.listen({ host: POD.appIp, port: 8080 });
  await once(app, 'listening');
  const onNode = { nodeName: 'bench', isTerminal: false };
  const ztunnelPod = {
    name: 'ztunnel-bench',
    namespace: 'istio-system',
    serviceAccount: 'ztunnel',
    uid: 'zt',
    ...onNode,
  };
  const caServer = await startStandaloneCa({ dir, pods: [{ ...POD, ...onNode }, ztunnelPod] });
  const agent = await startNodeAgentServer(join(dir, 'zds.sock'));
  await agent.addWorkload(POD);
  const ztunnel = execa(process.execPath, [join(PROJECT_ROOT, 'ztunnel', 'main.ts')], {
    env: {
      NODE_NAME: 'bench',
      NODE_IP: '127.63.0.1',
      ZDS_ADDRESS: agent.path,
      ...(await caServer.credentialsFor(ztunnelPod)),
      INSTANCE: 'bench',
      LOG_LEVEL: 'warn',
    },
    stdin: 'ignore',
    stdout: 'ignore',
    reject: false,
  });
  try {
    await agent.whenSnapshotAcked('bench');
    const direct = await directLoad(POD.appIp, options.connections, options.durationMs);
    const cert = await caServer.ca.issue({ namespace: 'default', serviceAccount: 'bench-client' });
    const hbone = await withCpu(ztunnel.pid, () =>
      hboneLoad({ host: POD.podIp, cert, connections: options.connections, durationMs: options.durationMs }),
    );
    return { direct, hbone };
  } finally {
    ztunnel.kill('SIGKILL');
    await ztunnel;
    await agent.close();
    await caServer.close();
    app.close();
    await rm(dir, { recursive: true, force: true });
  }
}
