import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ConnectionOutcome } from '../telemetry/connection-log.ts';
import { connectUpstream, describeConnectError } from './connect-upstream.ts';
import type { InboundDeps } from './hbone-inbound.ts';
import { pipeConnection } from './pipe-connection.ts';

/**
 * The part every inbound path shares: track the connection (so drain and DelWorkload can force it
 * closed), connect to the app, then either splice the two or report the failure. What differs is
 * how the downstream hears of it: `accept` (a 200 for HBONE, nothing for plaintext), `reject` (503 /
 * RST) and `reset` (RST_STREAM / RST).
 */
export function proxyToApp(options: {
  downstream: Duplex;
  app: { host: string; port: number };
  deps: InboundDeps;
  complete: (outcome: ConnectionOutcome) => void;
  accept: () => void;
  reject: () => void;
  reset: () => void;
}): void {
  const { downstream, deps, complete } = options;
  const abort = new AbortController();
  let upstream: Socket | undefined;
  let forcedReason: string | undefined;
  const untrack = deps.tracker.add({
    forceClose: (reason) => {
      forcedReason = reason;
      abort.abort();
      options.reset();
      upstream?.resetAndDestroy();
    },
  });
  // Until the app connection is up, the downstream going away just cancels the connect.
  const cancel = (): void => {
    abort.abort();
  };
  downstream.once('close', cancel);
  downstream.on('error', cancel);
  connectUpstream({
    ...options.app,
    signal: abort.signal,
    ...(deps.upstreamConnectTimeoutMs === undefined ? {} : { timeoutMs: deps.upstreamConnectTimeoutMs }),
  }).then(
    (sock) => {
      upstream = sock;
      downstream.off('close', cancel);
      downstream.off('error', cancel);
      if (downstream.destroyed) {
        sock.destroy();
        untrack();
        complete({ bytesSent: 0, bytesRecv: 0, error: 'downstream closed before the upstream connected' });
        return;
      }
      options.accept();
      pipeConnection(downstream, sock, (bytes, err) => {
        untrack();
        const error = forcedReason ?? err?.message;
        complete({ bytesSent: bytes.sent, bytesRecv: bytes.recv, ...(error === undefined ? {} : { error }) });
      });
    },
    (err: unknown) => {
      options.reject();
      untrack();
      complete({ bytesSent: 0, bytesRecv: 0, error: describeConnectError(err) });
    },
  );
}
