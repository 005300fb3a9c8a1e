// One HBONE hop through istio/ztunnel's own binary (dedicated mode, in its pod's network namespace),
// next to the same echo load sent straight into that namespace: upstream's per-hop latency and CPU
// beside ours (hbone-hop.ts). Needs the binary and root, as `npm run ztunnel-conformance`.
import { POD_SPIFFE } from '../conformance/model-target.ts';
import { startRealZtunnelPod } from '../conformance/real-target.ts';
import type { RealZtunnel } from '../conformance/real-target.ts';
import type { EchoLoadResult } from './echo-load.ts';
import { directLoad, hboneLoad, withCpu } from './hbone-hop.ts';

const ECHO_APP =
  "require('net').createServer((s)=>{s.on('error',()=>{});s.pipe(s)}).listen(8080,'0.0.0.0',()=>console.log('echo listening'))";

export async function benchIstioHop(options: {
  real: RealZtunnel;
  connections: number;
  durationMs: number;
}): Promise<{ direct: EchoLoadResult; hbone: EchoLoadResult & { cpuUsPerRoundTrip: number } }> {
  const pod = await startRealZtunnelPod({
    real: options.real,
    deadlineMs: 1000,
    app: [process.execPath, '-e', ECHO_APP],
    appListening: /echo listening/,
  });
  try {
    const direct = await directLoad(pod.ip, options.connections, options.durationMs);
    const hbone = await withCpu(pod.ztunnel.pid, () =>
      hboneLoad({
        host: pod.ip,
        cert: pod.clientCert,
        expectedIdentity: POD_SPIFFE,
        connections: options.connections,
        durationMs: options.durationMs,
      }),
    );
    return { direct, hbone };
  } finally {
    await pod.close();
  }
}
