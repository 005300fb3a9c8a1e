import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { constants } from 'node:http2';
import type { ClientHttp2Stream } from 'node:http2';
import { hboneAddressOf } from '../../mesh/discovery/index.ts';
import type { DiscoveryState, WorkloadEntry } from '../../mesh/discovery/index.ts';
import type { HbonePool } from '../../mesh/hbone/index.ts';
import { formatSpiffeId } from '../../mesh/pki/index.ts';
import type { WorkloadCertificate } from '../../mesh/pki/index.ts';
import { parseProxyV2 } from '../../mesh/proxy-protocol.ts';
import type { Endpoint } from '../../mesh/proxy-protocol.ts';
import type { LocalWorkload } from '../../mesh/workload.ts';
import type { ProxyDeps } from '../proxy/proxy-deps.ts';
import type { FlowState } from '../proxy/pipe-connection.ts';
import { pipeConnection } from '../proxy/pipe-connection.ts';
import { openConnectionRecord } from '../telemetry/connection-log.ts';
import { pickEndpoint } from './pick-endpoint.ts';

export interface OutboundDeps extends ProxyDeps {
  discovery: DiscoveryState;
  pool: HbonePool;
  random?: () => number;
}

/** Where a captured connection goes: a pod (by HBONE) or nowhere. */
type Route = { endpoint: WorkloadEntry; targetPort: number } | { error: string };

/** Service VIP -> one HEALTHY endpoint, chosen once per connection; a pod IP -> that pod. */
export function routeDestination(dst: Endpoint, deps: Pick<OutboundDeps, 'discovery' | 'random'>): Route {
  const service = deps.discovery.serviceByVip(dst.ip);
  if (service) {
    const port = service.ports.find((p) => p.port === dst.port);
    if (!port) return { error: `service ${service.name} has no port ${String(dst.port)}` };
    const endpoint = pickEndpoint(deps.discovery.endpointsOf(service), deps.random);
    return endpoint ? { endpoint, targetPort: port.targetPort } : { error: 'no healthy upstream' };
  }
  const workload = deps.discovery.workloadByIp(dst.ip);
  if (workload) return { endpoint: workload, targetPort: dst.port };
  return { error: `unknown destination ${dst.ip}:${String(dst.port)} (not a mesh service or workload)` };
}

/**
 * The pod's outbound capture (:15001 on the pod address). A captured client first sends a PROXY v2
 * header naming the destination it meant; ztunnel routes it and tunnels the bytes over a pooled HBONE
 * connection to the endpoint's ztunnel, as the source pod's identity. Failures reset the client.
 * Outbound flows get no drain signal: they end by themselves or are force-closed at the deadline.
 */
export function createOutboundCapture(
  workload: LocalWorkload,
  cert: WorkloadCertificate,
  deps: OutboundDeps,
): Server {
  return createServer({ noDelay: true, allowHalfOpen: true }, (client) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      let header;
      try {
        header = parseProxyV2(buffered);
      } catch (err) {
        deps.log.warn('outbound connection without a PROXY v2 header', {
          'src.addr': client.remoteAddress,
          error: err,
        });
        client.resetAndDestroy();
        return;
      }
      if (!header) return;
      client.off('data', onData);
      client.pause();
      tunnel(client, header.src, header.dst, buffered.subarray(header.length), workload, cert, deps);
    };
    client.on('data', onData);
    client.on('error', () => undefined);
  });
}

function tunnel(
  client: Socket,
  src: Endpoint,
  dst: Endpoint,
  early: Buffer,
  workload: LocalWorkload,
  cert: WorkloadCertificate,
  deps: OutboundDeps,
): void {
  const route = routeDestination(dst, deps);
  const endpoint = 'endpoint' in route ? route.endpoint : undefined;
  const dstIdentity = endpoint
    ? formatSpiffeId({
        trustDomain: cert.identity.trustDomain,
        namespace: endpoint.namespace,
        serviceAccount: endpoint.serviceAccount,
      })
    : 'unknown';
  const authority =
    endpoint && 'targetPort' in route ? `${endpoint.podIp}:${String(route.targetPort)}` : undefined;
  const complete = openConnectionRecord(
    {
      direction: 'outbound',
      srcAddr: `${src.ip}:${String(src.port)}`,
      srcIdentity: cert.spiffeId,
      dstAddr: endpoint ? hboneAddressOf(endpoint) : `${dst.ip}:${String(dst.port)}`,
      ...(authority ? { dstHboneAddr: authority } : {}),
      dstWorkload: endpoint?.name ?? 'unknown',
      dstNamespace: endpoint?.namespace ?? 'unknown',
      dstIdentity,
    },
    deps,
  );
  if ('error' in route || !endpoint || !authority) {
    client.resetAndDestroy();
    complete({ bytesSent: 0, bytesRecv: 0, error: 'error' in route ? route.error : 'no route' });
    return;
  }
  let forcedReason: string | undefined;
  let stream: ClientHttp2Stream | undefined;
  const flow: FlowState = { awaitingAnswer: false };
  const untrack = deps.tracker.add({
    // Upstream drops the flow's task: the app's socket is closed (FIN, or RST with unread data) and
    // the h2 crate resets the dropped stream with CANCEL; the pooled connection lives on.
    drop: (reason) => {
      forcedReason = reason;
      client.destroy();
      if (stream && !stream.destroyed) stream.close(constants.NGHTTP2_CANCEL);
    },
    // The client pod's network is gone: its socket goes silent; nothing more is sent for it.
    freeze: (reason) => {
      forcedReason = reason;
      client.pause();
      client.unpipe();
      stream?.unpipe();
    },
    hasDataInFlight: () => stream === undefined || flow.awaitingAnswer,
  });
  const headers = {
    baggage: `k8s.namespace.name=${workload.namespace},k8s.pod.name=${workload.name},service.name=${workload.name}`,
    forwarded: `for=${src.ip}`,
    traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`,
  };
  const key = { srcIdentity: cert.spiffeId, dstIdentity, dstAddr: hboneAddressOf(endpoint) };
  deps.pool.connect(key, cert, authority, headers).then(
    (t) => {
      stream = t.stream;
      if (t.status !== 200 || client.destroyed) {
        t.stream.close(constants.NGHTTP2_CANCEL);
        client.resetAndDestroy();
        untrack();
        complete({
          bytesSent: 0,
          bytesRecv: 0,
          error: `connection failed: http status: ${String(t.status)}`,
        });
        return;
      }
      if (early.length > 0) t.stream.write(early);
      pipeConnection(
        client,
        t.stream,
        (bytes, err) => {
          untrack();
          const error = forcedReason ?? err?.message;
          complete({
            bytesSent: bytes.recv + early.length,
            bytesRecv: bytes.sent,
            ...(error === undefined ? {} : { error }),
          });
        },
        flow,
      );
      client.resume();
    },
    (err: unknown) => {
      client.resetAndDestroy();
      untrack();
      complete({
        bytesSent: 0,
        bytesRecv: 0,
        error: `connection failed: ${err instanceof Error ? err.message : String(err)}`,
      });
    },
  );
}
