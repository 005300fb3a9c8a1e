import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import type { LocalWorkload } from '../../mesh/workload.ts';
import type { WorkloadCertificate } from '../../mesh/pki/index.ts';
import { openConnectionRecord } from '../telemetry/connection-log.ts';
import type { ProxyDeps } from '../proxy/proxy-deps.ts';
import { socketKey } from '../telemetry/socket-queues.ts';
import { proxyToApp } from './proxy-to-app.ts';

/**
 * Plaintext inbound capture for one pod port: what in-pod redirection sends to ztunnel's :15006. Here
 * ztunnel binds pod IP:port itself (the app binds its private address), accepts, then connects on to
 * the app. Like upstream (src/proxy/inbound_passthrough.rs), nothing is read from the client until
 * the app connection is up (pauseOnConnect), and a failure drops the client socket: close() sends a
 * RST when the client's request is still unread in it, else a FIN. The client already holds an
 * established connection either way, which is how a peer outside the mesh sees an app that has gone
 * (503 UC at an Envoy client).
 */
export function createPlaintextInbound(
  workload: LocalWorkload,
  port: number,
  cert: WorkloadCertificate,
  deps: ProxyDeps,
): Server {
  // allowHalfOpen: a client's FIN is passed on to the app, and the app's reply still flows back.
  return createServer({ noDelay: true, allowHalfOpen: true, pauseOnConnect: true }, (client) => {
    handlePlaintext(client, workload, port, cert, deps);
  });
}

function handlePlaintext(
  client: Socket,
  workload: LocalWorkload,
  port: number,
  cert: WorkloadCertificate,
  deps: ProxyDeps,
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
    accept: () => {
      client.resume();
    },
    reject: () => {
      client.destroy();
    },
    drop: () => {
      client.destroy();
    },
    freeze: () => {
      client.pause();
    },
    transport: socketKey(client),
  });
}
