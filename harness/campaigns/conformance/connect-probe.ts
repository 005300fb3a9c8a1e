// How a ztunnel answers HBONE CONNECTs that a rollout produces (E2): to the pod's app, to a port of
// the pod where nothing listens (the app has exited but the pod is still served), and to an address
// that is not the pod's. The same requests for any ztunnel, ours or istio/ztunnel's binary.
import { openTunnel } from '../../../mesh/hbone/index.ts';
import { openProbeSession } from './drain-probe.ts';
import type { DrainTarget } from './drain-probe.ts';

export interface ConnectObservation {
  /** CONNECT answer (status, or how the stream ended) and the access log's error for it. */
  app: string;
  closedPort: string;
  foreignAddress: string;
}

/** Port 9 (discard): nothing of ours listens there. */
const CLOSED_PORT = 9;

export async function probeConnects(target: DrainTarget): Promise<ConnectObservation> {
  const session = await openProbeSession(target);
  const podIp = target.appAuthority.replace(/:\d+$/, '');
  const other = podIp.replace(/\.\d+$/, '.99');
  const ask = async (authority: string): Promise<string> => {
    const before = target.logLines().length;
    const answer = await openTunnel(session, authority).then(
      (t) => {
        t.stream.destroy();
        return String(t.status);
      },
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
    await new Promise((r) => setTimeout(r, 200)); // its access log line
    const line = target
      .logLines()
      .slice(before)
      .map((l) => /error="([^"]*)"/.exec(l)?.[1])
      .find((e) => e !== undefined);
    // Addresses differ between the two ztunnels' worlds: named by role, so the rows compare.
    const error = line?.replaceAll(podIp, 'POD').replaceAll(other, 'OTHER');
    return error === undefined ? answer : `${answer}, error="${error}"`;
  };
  try {
    return {
      app: await ask(target.appAuthority),
      closedPort: await ask(`${podIp}:${String(CLOSED_PORT)}`),
      foreignAddress: await ask(`${other}:8080`),
    };
  } finally {
    session.destroy();
  }
}
