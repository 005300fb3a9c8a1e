import type { Server } from 'node:net';
import { createSecureContext } from 'node:tls';
import type { SecureContext, TLSSocket } from 'node:tls';
import type { DiscoveryState, WorkloadEntry } from '../../mesh/discovery/index.ts';
import { mtlsContext, parseIdentityServerName } from '../../mesh/pki/index.ts';
import type { Identity, WorkloadCertificate } from '../../mesh/pki/index.ts';
import { HBONE_PORT } from '../../mesh/workload.ts';
import type { LocalWorkload } from '../../mesh/workload.ts';
import { createConnectionTracker } from './connection-tracker.ts';
import { createHboneServer, UNKNOWN_WORKLOAD_WAIT_MS } from './hbone-inbound.ts';
import type { HboneTarget, InboundDeps, TargetResolver } from './hbone-inbound.ts';
import { bindInbound } from './pod-listeners.ts';
import type { InboundListeners } from './pod-listeners.ts';

export interface NodeListenerOptions {
  nodeIp: string;
  nodeName: string;
  discovery: DiscoveryState;
  issueCert: (identity: { namespace: string; serviceAccount: string }) => Promise<WorkloadCertificate>;
  /** Served when a client names no identity (ztunnel's own); such a client's CONNECTs get 400. */
  ownCert: WorkloadCertificate;
  deps: Omit<InboundDeps, 'tracker'>;
}

const sameIdentity = (w: WorkloadEntry, id: Identity): boolean =>
  w.namespace === id.namespace && w.serviceAccount === id.serviceAccount;

/**
 * ztunnel's node-address mode (the kind backend; upstream's INPOD_ENABLED=false): one HBONE
 * listener on the node's address (:15008, hostNetwork) for every ambient pod of this node, instead
 * of a listener inside each pod. The pods come from discovery (workloads on this node with protocol
 * HBONE), not from the CNI node agent. Which identity to serve is named by the client's SNI
 * (identityServerName), and only identities of this node's pods are served; a CONNECT must name a
 * pod of this node with that identity (else 400: no open relay). The app is reached on the pod IP
 * itself (nothing captures it). Plaintext inbound and the outbound capture are not offered: with no
 * traffic redirection, plaintext to a pod reaches its app directly.
 */
export async function startNodeListener(options: NodeListenerOptions): Promise<InboundListeners> {
  const { discovery, nodeName } = options;
  const tracker = createConnectionTracker();
  const deps: InboundDeps = { ...options.deps, tracker };
  const certs = new Map<string, WorkloadCertificate>();
  const isLocal = (w: WorkloadEntry): boolean => w.node === nodeName && w.protocol === 'HBONE';

  const SNICallback = (servername: string, done: (err: Error | null, ctx?: SecureContext) => void): void => {
    const id = parseIdentityServerName(servername);
    if (!id) {
      done(new Error(`server name ${servername} names no identity`));
      return;
    }
    if (!discovery.workloads().some((w) => isLocal(w) && sameIdentity(w, id))) {
      done(new Error(`no pod of node ${nodeName} has identity ${id.namespace}/${id.serviceAccount}`));
      return;
    }
    options.issueCert(id).then(
      (cert) => {
        certs.set(servername, cert);
        done(null, createSecureContext(mtlsContext(cert)));
      },
      (err: unknown) => {
        done(err instanceof Error ? err : new Error(String(err)));
      },
    );
  };

  const toTarget = (w: WorkloadEntry | undefined, socket: TLSSocket): HboneTarget | undefined => {
    const servername = typeof socket.servername === 'string' ? socket.servername : '';
    const id = parseIdentityServerName(servername);
    const cert = certs.get(servername);
    if (!w || !isLocal(w) || !id || !cert || !sameIdentity(w, id)) return undefined;
    const workload: LocalWorkload = {
      uid: w.uid,
      name: w.name,
      namespace: w.namespace,
      serviceAccount: w.serviceAccount,
      podIp: w.podIp,
      appIp: w.podIp,
      ports: [],
    };
    return { workload, cert };
  };

  const resolveTarget: TargetResolver = (target, socket) => {
    const known = discovery.workloadByIp(target.host);
    if (known) return toTarget(known, socket);
    return discovery
      .waitForWorkload(target.host, UNKNOWN_WORKLOAD_WAIT_MS)
      .then(() => toTarget(discovery.workloadByIp(target.host), socket));
  };

  const hbone = createHboneServer({ ...mtlsContext(options.ownCert), SNICallback }, resolveTarget, deps);
  const servers: [Server, number][] = [[hbone.server, HBONE_PORT]];
  return bindInbound(servers, options.nodeIp, hbone, tracker);
}
