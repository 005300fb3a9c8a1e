import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import type { LocalWorkload } from '../../mesh/workload.ts';
import type { WorkloadCertificate } from '../../mesh/pki/index.ts';
import { openConnectionRecord } from '../telemetry/connection-log.ts';
import type { InboundDeps } from './hbone-inbound.ts';
import { proxyToApp } from './proxy-to-app.ts';

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
  proxyToApp({
    downstream: client,
    app: { host: workload.appIp, port },
    deps,
    complete,
    accept: () => undefined,
    // The client already holds an established connection: a failure can only reset it.
    reject: () => {
      if (!client.destroyed) client.resetAndDestroy();
    },
    reset: () => {
      client.resetAndDestroy();
    },
  });
}
