// One drain, observed from the client side of HBONE, the same way for any ztunnel (ours or
// istio/ztunnel's binary): what a peer such as the gateway sees when the ztunnel serving a pod gets
// SIGTERM with two tunnels open, one idle keep-alive and one with a request in flight that outlasts
// the drain deadline. The client keeps its streams after a GOAWAY, as Envoy does (hbone-pool.ts).
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { keepStreamsAfterGoaway, openHboneSession, openTunnel } from '../../../mesh/hbone/index.ts';
import type { WorkloadCertificate } from '../../../mesh/pki/index.ts';

export interface DrainTarget {
  /** pod IP:15008 */
  hboneHost: string;
  hbonePort: number;
  /** The app behind it (CONNECT authority). */
  appAuthority: string;
  /** The identity the ztunnel must present for the pod. */
  podIdentity: string;
  clientCert: WorkloadCertificate;
  /** Sends SIGTERM (or its in-process equivalent) to the ztunnel. */
  terminate(): void;
  /** The ztunnel's log so far (access log lines included). */
  logLines(): string[];
  /** The configured drain deadline, ms after SIGTERM. */
  deadlineMs: number;
  /** Resolves once the drain is over (the process exited), so its last log lines are in. */
  settled(): Promise<void>;
}

export interface DrainObservation {
  /** ms after SIGTERM the first GOAWAY arrived, with its code and last stream id; null if none. */
  goaway: { afterMs: number; code: number; lastStreamId: number } | null;
  /** A request on the idle tunnel after the GOAWAY (or 300 ms after SIGTERM without one). */
  idleTunnelAfterSigterm: string;
  /** A new TCP connection to the HBONE port after SIGTERM: 'refused', 'accepted' or the error. */
  newConnectionAfterSigterm: string;
  /**
   * How the HBONE connection ended, ms after SIGTERM: the ztunnel's FIN or RST, closed by the client
   * first, or still open when the probe gave up.
   */
  connectionEnd: { how: 'FIN' | 'RST' | 'client' | 'open'; afterMs: number };
  /** The server's HTTP/2 SETTINGS that shape a tunnel, and its connection window. */
  settings: Record<
    'initialWindowSize' | 'maxFrameSize' | 'maxConcurrentStreams' | 'maxHeaderListSize' | 'connectionWindow',
    number | undefined
  >;
  /** Every GOAWAY the client got: [code, last stream id]. */
  goaways: [number, number][];
  /** The request in flight: its status if answered, else how it ended. */
  inFlightRequest: string;
  /** The `error="..."` values the ztunnel logged after SIGTERM. */
  logErrors: string[];
}

/** GET `path` over a tunnel's byte stream (HTTP/1.1 keep-alive); resolves with the status line's code. */
export function requestOver(stream: Duplex, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString('latin1');
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      done();
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(buffered)?.[1] ?? 0));
    };
    const onEnd = (): void => {
      done();
      reject(new Error('tunnel closed before a response'));
    };
    const onError = (err: Error): void => {
      done();
      reject(err);
    };
    const done = (): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('close', onEnd);
      stream.off('error', onError);
    };
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('close', onEnd);
    stream.once('error', onError);
    stream.write(`GET ${path} HTTP/1.1\r\nHost: httpbin\r\n\r\n`);
  });
}

function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      resolve(err.code === 'ECONNREFUSED' ? 'refused' : (err.code ?? err.message));
    });
  });
}

const describe = (p: Promise<number>): Promise<string> =>
  p.then(
    (status) => `answered ${String(status)}`,
    (err: unknown) => `failed: ${err instanceof Error ? err.message : String(err)}`,
  );

/** The probing client's HBONE connection to the target's ztunnel, checking the pod's identity. */
export function openProbeSession(target: DrainTarget): ReturnType<typeof openHboneSession> {
  return openHboneSession({
    host: target.hboneHost,
    port: target.hbonePort,
    cert: target.clientCert,
    expectedIdentity: target.podIdentity,
    connectTimeoutMs: 5_000,
  });
}

export async function probeDrain(target: DrainTarget): Promise<DrainObservation> {
  const session = await openProbeSession(target);
  let streams = 2;
  let t0 = 0;
  const since = (): number => Math.round(performance.now() - t0);
  let goaway: DrainObservation['goaway'] = null;
  const goaways: [number, number][] = [];
  session.on('goaway', (code: number, lastStreamId: number) => goaways.push([code, lastStreamId]));
  keepStreamsAfterGoaway(session, () => streams);
  const gotGoaway = new Promise<void>((resolve) => {
    session.once('goaway', (code: number, lastStreamId: number) => {
      goaway = { afterMs: since(), code, lastStreamId };
      resolve();
    });
  });
  const connectionEnd: DrainObservation['connectionEnd'] = { how: 'open', afterMs: 0 };
  const ended = new Promise<void>((resolve) => {
    const mark = (how: 'FIN' | 'RST' | 'client'): void => {
      if (connectionEnd.how === 'open') Object.assign(connectionEnd, { how, afterMs: since() });
      resolve();
    };
    session.socket.once('end', () => {
      mark('FIN');
    });
    session.socket.once('error', () => {
      mark('RST');
    });
    session.once('close', () => {
      mark('client');
    });
  });
  const idle = await openTunnel(session, target.appAuthority);
  const { initialWindowSize, maxFrameSize, maxConcurrentStreams, maxHeaderListSize } = session.remoteSettings;
  const settings = {
    initialWindowSize,
    maxFrameSize,
    maxConcurrentStreams,
    maxHeaderListSize,
    connectionWindow: session.state.remoteWindowSize,
  };
  const busy = await openTunnel(session, target.appAuthority);
  for (const t of [idle, busy]) {
    t.stream.once('close', () => streams--);
    if (t.status !== 200) throw new Error(`CONNECT ${target.appAuthority} answered ${String(t.status)}`);
  }
  const first = await requestOver(idle.stream, '/status/418');
  if (first !== 418) throw new Error(`GET /status/418 through the tunnel answered ${String(first)}`);
  const delayS = Math.ceil(target.deadlineMs / 1000) + 5;
  const inFlight = describe(requestOver(busy.stream, `/delay/${String(delayS)}`));
  await new Promise((r) => setTimeout(r, 200)); // the request is inside the app
  const logStart = target.logLines().length;
  t0 = performance.now();
  target.terminate();
  await Promise.race([gotGoaway, new Promise((r) => setTimeout(r, 300))]);
  const idleTunnelAfterSigterm = await describe(requestOver(idle.stream, '/status/418'));
  const newConnectionAfterSigterm = await tryConnect(target.hboneHost, target.hbonePort);
  await Promise.race([ended, new Promise((r) => setTimeout(r, target.deadlineMs + 5_000))]);
  const inFlightRequest = await Promise.race([
    inFlight,
    new Promise<string>((r) =>
      setTimeout(() => {
        r('still waiting');
      }, 1_000),
    ),
  ]);
  session.destroy();
  await target.settled(); // the access log's lines for the two tunnels are written by then
  const logErrors = [
    ...new Set(
      target
        .logLines()
        .slice(logStart)
        .flatMap((l) => [...l.matchAll(/error="([^"]*)"/g)].map((m) => m[1] ?? '')),
    ),
  ];
  return {
    settings,
    goaway,
    goaways,
    idleTunnelAfterSigterm,
    newConnectionAfterSigterm,
    connectionEnd,
    inFlightRequest,
    logErrors,
  };
}
