import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ConnectionOutcome } from '../telemetry/connection-log.ts';
import { connectUpstream, describeConnectError } from '../proxy/connect-upstream.ts';
import type { ProxyDeps } from '../proxy/proxy-deps.ts';
import { pipeConnection } from '../proxy/pipe-connection.ts';
import type { FlowState } from '../proxy/pipe-connection.ts';

/**
 * The part every inbound path shares: track the connection (so drain and DelWorkload can drop it),
 * connect to the app, then either splice the two or report the failure. What differs is how the
 * downstream hears of it: `accept` (a 200 for HBONE, nothing for plaintext), `reject` (503 / the
 * socket closed) and `drop` (what dropping the connection does to the downstream: its socket
 * closed for plaintext; nothing for an HBONE stream, whose whole connection the listener drops).
 */
export function proxyToApp(options: {
  downstream: Duplex;
  app: { host: string; port: number };
  deps: ProxyDeps;
  complete: (outcome: ConnectionOutcome) => void;
  accept: () => void;
  reject: () => void;
  drop: () => void;
  /** What a drop with the network already gone does to the downstream (see connection-tracker.ts). */
  freeze: () => void;
  /** The TCP socket the downstream rides on (socket-queues.ts's key), for the drain deadline's account. */
  transport?: string | undefined;
}): void {
  const { downstream, deps } = options;
  let completed = false;
  const complete = (outcome: ConnectionOutcome): void => {
    if (completed) return;
    completed = true;
    options.complete(outcome);
  };
  const abort = new AbortController();
  let upstream: Socket | undefined;
  let forcedReason: string | undefined;
  const flow: FlowState = { awaitingAnswer: false };
  const untrack = deps.tracker.add({
    drop: (reason) => {
      forcedReason = reason;
      abort.abort();
      options.drop();
      // close(): a FIN to the app, or a RST if the app's bytes are still unread here.
      upstream?.destroy();
    },
    freeze: (reason) => {
      forcedReason = reason;
      abort.abort();
      // Nothing may reach the downstream now: no more bytes, no FIN when the app side goes.
      upstream?.unpipe(downstream);
      downstream.unpipe();
      options.freeze();
      upstream?.destroy();
      untrack();
      complete({ bytesSent: 0, bytesRecv: 0, error: reason });
    },
    // Still connecting: the request that opened it waits for an answer.
    hasDataInFlight: () => upstream === undefined || flow.awaitingAnswer,
    transport: () => options.transport,
  });
  // Until the app connection is up, the downstream going away just cancels the connect.
  const cancel = (): void => {
    abort.abort();
  };
  downstream.once('close', cancel);
  downstream.on('error', cancel);
  (deps.connectApp ?? connectUpstream)({
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
      pipeConnection(
        downstream,
        sock,
        (bytes, err) => {
          untrack();
          const error = forcedReason ?? err?.message;
          complete({
            bytesSent: bytes.sent,
            bytesRecv: bytes.recv,
            ...(error === undefined ? {} : { error }),
          });
        },
        flow,
      );
    },
    (err: unknown) => {
      options.reject();
      untrack();
      complete({ bytesSent: 0, bytesRecv: 0, error: describeConnectError(err) });
    },
  );
}
