import { connect } from 'node:net';
import { encodeProxyV2 } from '../../mesh/proxy-protocol.ts';

/** One request's outcome, as the client logs it. */
export interface ClientRequest {
  startWallMs: number;
  durationMs: number;
  /** HTTP status; 0 when no response came. */
  status: number;
  /** Why no response came (errno, 'timeout', 'closed'); '' on a response. */
  error: string;
}

export interface ClientTarget {
  /** This pod's address: its node's ztunnel captures outbound on <podIp>:15001. */
  podIp: string;
  /** Where the app itself binds (its local address for the capture connection). */
  appIp: string;
  /** The service it calls (VIP:port), carried to ztunnel in a PROXY v2 header. */
  vip: string;
  port: number;
  path: string;
  timeoutMs: number;
}

/** ztunnel's outbound capture port (in-pod iptables would redirect to it). */
const OUTBOUND_CAPTURE_PORT = 15001;

/**
 * One request on a new app connection through the pod's outbound capture, as an ambient app's
 * connection to a Service is redirected to its node's ztunnel: PROXY v2 names the original
 * destination, then HTTP/1.1 with `Connection: close`. Resolves with what happened; never rejects.
 */
export function sendThroughCapture(target: ClientTarget, now: () => number): Promise<ClientRequest> {
  const startWallMs = now();
  return new Promise((resolve) => {
    const socket = connect({ host: target.podIp, port: OUTBOUND_CAPTURE_PORT, localAddress: target.appIp });
    let received = '';
    let settled = false;
    const finish = (status: number, error: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ startWallMs, durationMs: now() - startWallMs, status, error });
    };
    const timer = setTimeout(() => {
      finish(0, 'timeout');
    }, target.timeoutMs);
    socket.once('connect', () => {
      const header = encodeProxyV2(
        { ip: target.podIp, port: socket.localPort ?? 0 },
        { ip: target.vip, port: target.port },
      );
      socket.write(
        Buffer.concat([
          header,
          Buffer.from(`GET ${target.path} HTTP/1.1\r\nHost: httpbin\r\nConnection: close\r\n\r\n`),
        ]),
      );
    });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (status && received.includes('\r\n\r\n')) finish(Number(status[1]), '');
    });
    socket.once('end', () => {
      finish(0, 'closed');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      finish(0, err.code ?? err.message);
    });
  });
}

/** `request status=418 duration_ms=3.1 error=-`: the line the harness reads back (client-log.ts). */
export function formatClientRequest(r: ClientRequest): string {
  return `request start_ms=${String(r.startWallMs)} status=${String(r.status)} duration_ms=${r.durationMs.toFixed(1)} error=${r.error || '-'}`;
}

const CLIENT_LINE = /\brequest start_ms=(\d+) status=(\d+) duration_ms=([\d.]+) error=(\S+)/;

export function parseClientRequest(line: string): ClientRequest | undefined {
  const m = CLIENT_LINE.exec(line);
  if (!m) return undefined;
  return {
    startWallMs: Number(m[1]),
    status: Number(m[2]),
    durationMs: Number(m[3]),
    error: m[4] === '-' ? '' : (m[4] ?? ''),
  };
}
