import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import type { LocalWorkload } from '../../mesh/workload.ts';
import type { WorkloadCertificate } from '../../mesh/pki/index.ts';
import { openConnectionRecord } from '../telemetry/connection-log.ts';
import { connectUpstream, describeConnectError } from './connect-upstream.ts';
import type { InboundDeps } from './hbone-inbound.ts';
import { pipeConnection } from './pipe-connection.ts';

/**
 * Plaintext inbound capture for one pod port: what in-pod redirection sends to ztunnel's :15006. Here
 * ztunnel binds pod IP:port itself (the app binds its private address), accepts, then connects on to
 * the app. When that connect fails the accepted connection is reset: the client already holds an
 * established connection, which is how a peer outside the mesh sees an app that has gone (503 UC at
 * an Envoy client).
 */
export function createPlaintextInbound(
  workload: LocalWorkload,
  port: number,
  cert: WorkloadCertificate,
  deps: InboundDeps,
): Server {
  // allowHalfOpen: a client's FIN is passed on to the app, and the app's reply still flows back.
  return createServer({ noDelay: true, allowHalfOpen: true }, (client) => {
    handlePlaintext(client, workload, port, cert, deps);
  });
}

function handlePlaintext(
  client: Socket,
  workload: LocalWorkload,
  port: number,
  cert: WorkloadCertificate,
  deps: InboundDeps,
): void {
  const complete = openConnectionRecord(
    {
      direction: 'inbound',
      srcAddr: `${client.remoteAddress ?? '?'}:${String(client.remotePort ?? 0)}`,
      dstAddr: `${workload.podIp}:${String(port)}`,
      dstWorkload: workload.name,
      dstNamespace: workload.namespace,
      dstIdentity: cert.spiffeId,
    },
    deps,
  );
  const abort = new AbortController();
  let upstream: Socket | undefined;
  let forcedReason: string | undefined;
  const untrack = deps.tracker.add({
    forceClose: (reason) => {
      forcedReason = reason;
      abort.abort();
      client.resetAndDestroy();
      upstream?.resetAndDestroy();
    },
  });
  // Until the upstream is up, a client error or close just cancels the connect.
  const onEarlyClose = (): void => {
    abort.abort();
  };
  client.once('close', onEarlyClose);
  client.on('error', onEarlyClose);
  connectUpstream({
    host: workload.appIp,
    port,
    signal: abort.signal,
    ...(deps.upstreamConnectTimeoutMs === undefined ? {} : { timeoutMs: deps.upstreamConnectTimeoutMs }),
  }).then(
    (sock) => {
      upstream = sock;
      client.off('close', onEarlyClose);
      client.off('error', onEarlyClose);
      pipeConnection(client, sock, (bytes, err) => {
        untrack();
        const error = forcedReason ?? err?.message;
        complete({ bytesSent: bytes.sent, bytesRecv: bytes.recv, ...(error === undefined ? {} : { error }) });
      });
    },
    (err: unknown) => {
      if (!client.destroyed) client.resetAndDestroy();
      untrack();
      complete({ bytesSent: 0, bytesRecv: 0, error: describeConnectError(err) });
    },
  );
}
